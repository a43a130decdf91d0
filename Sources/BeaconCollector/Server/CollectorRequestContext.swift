import Hummingbird
import NIOCore

/// The request context: Hummingbird's core storage plus the connection's channel, which
/// the collector needs to see the peer's address (admin routes) and to reset a connection
/// (fault injection).
struct CollectorRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The connection the request arrived on.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        channel = source.channel
    }

    /// True when the peer is on the loopback interface.
    var peerIsLoopback: Bool {
        guard let address = channel.remoteAddress?.ipAddress else { return false }
        return address.hasPrefix("127.") || address == "::1" || address.hasPrefix("::ffff:127.")
    }
}
