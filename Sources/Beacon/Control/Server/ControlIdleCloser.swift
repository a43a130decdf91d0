import NIOCore
import Synchronization

/// Closes a control connection that sent no request for ``ControlServer/idleTimeout``
/// (the `IdleStateHandler` before it says so), so that silent connections do not hold
/// the channel's slots. Not while a request is being answered (``isBusy``): a long
/// dead-letter retry reads nothing meanwhile.
final class ControlIdleCloser: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// The name of the `IdleStateHandler` in the pipeline, removed when a connection starts watching.
    static let idleHandlerName = "beacon.control.idle"

    private let busy = Atomic<Bool>(false)

    /// Whether a request is being answered; set by the server around each one.
    var isBusy: Bool {
        get { busy.load(ordering: .relaxed) }
        set { busy.store(newValue, ordering: .relaxed) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            if !isBusy { context.close(promise: nil) }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}
