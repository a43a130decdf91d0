import BeaconWire
import Foundation
import NIOCore
import NIOPosix

/// What one raw TCP exchange with a server saw.
struct RawExchange: Sendable {
    /// Every byte the server sent.
    var received: [UInt8]
    /// True when the server closed (or reset) the connection before the deadline.
    var closedByServer: Bool
    /// Time from connecting to the end of the exchange.
    var elapsed: Duration

    /// The HTTP status of the first answer, if one arrived.
    var status: Int? {
        let text = String(decoding: received.prefix(64), as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 "), text.count >= 12 else { return nil }
        return Int(text.dropFirst(9).prefix(3))
    }

    /// The head of the first answer, lowercased.
    var head: String {
        let text = String(decoding: received, as: UTF8.self)
        return String(text.split(separator: "\r\n\r\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            .lowercased()
    }

    /// The body of the first answer (as long as its Content-Length says, else all after its head).
    var body: [UInt8] {
        guard let end = received.firstRange(of: Array("\r\n\r\n".utf8)) else { return [] }
        let rest = received[end.upperBound...]
        let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }
        return Array(length.map { rest.prefix($0) } ?? rest)
    }
}

/// A raw TCP client for tests of what HTTP clients never send: malformed framing, idle or
/// trickling connections. Everything runs on NIO's event loop, so waiting for the server
/// never blocks Swift's cooperative pool.
enum RawConnection {
    /// Connects to 127.0.0.1:`port`, sends `chunks` (the first at once, each next one
    /// `interval` later), and collects what the server sends until it closes the
    /// connection or `deadline` passes (then the client closes it).
    static func exchange(
        port: Int, chunks: [[UInt8]], interval: Duration = .zero, deadline: Duration = .seconds(5)
    ) async throws -> RawExchange {
        let group = MultiThreadedEventLoopGroup.singleton
        let eventLoop = group.next()
        let promise = eventLoop.makePromise(of: RawExchange.self)
        let start = ContinuousClock.now
        let channel = try await ClientBootstrap(group: eventLoop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        CollectingHandler(promise: promise, start: start, chunks: chunks, interval: interval))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        let timeout = eventLoop.scheduleTask(in: .nanoseconds(deadline.inNanoseconds)) {
            channel.pipeline.fireUserInboundEventTriggered(CollectingHandler.Deadline())
        }
        let result = try await promise.futureResult.get()
        timeout.cancel()
        return result
    }

    /// Opens a connection and keeps it open, sending nothing, until `close` is called on the result.
    static func open(port: Int) async throws -> any Channel {
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let promise = eventLoop.makePromise(of: RawExchange.self)
        return try await ClientBootstrap(group: eventLoop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        CollectingHandler(promise: promise, start: .now, chunks: [], interval: .zero))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
    }
}

/// Collects inbound bytes and completes the promise when the connection closes.
private final class CollectingHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    struct Deadline {}

    private let promise: EventLoopPromise<RawExchange>
    private let start: ContinuousClock.Instant
    private var pending: ArraySlice<[UInt8]>
    private let interval: Duration
    private var received: [UInt8] = []
    private var done = false
    private var sender: RepeatedTask?

    init(promise: EventLoopPromise<RawExchange>, start: ContinuousClock.Instant, chunks: [[UInt8]], interval: Duration) {
        self.promise = promise
        self.start = start
        self.pending = chunks[...]
        self.interval = interval
    }

    func channelActive(context: ChannelHandlerContext) {
        sendNext(context)
        if !pending.isEmpty {
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            let delay = TimeAmount.nanoseconds(interval.inNanoseconds)
            sender = context.eventLoop.scheduleRepeatedTask(initialDelay: delay, delay: delay) { task in
                let (handler, context) = loopBound.value
                handler.sendNext(context)
                if handler.pending.isEmpty { task.cancel() }
            }
        }
        context.fireChannelActive()
    }

    private func sendNext(_ context: ChannelHandlerContext) {
        guard !done, let chunk = pending.popFirst() else { return }
        context.writeAndFlush(NIOAny(context.channel.allocator.buffer(bytes: chunk)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        if let bytes = buffer.readBytes(length: buffer.readableBytes) { received += bytes }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is Deadline {
            finish(closedByServer: false)
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(closedByServer: true)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A reset by the server: the connection is over.
        finish(closedByServer: true)
        context.close(promise: nil)
    }

    private func finish(closedByServer: Bool) {
        guard !done else { return }
        done = true
        sender?.cancel()
        promise.succeed(RawExchange(received: received, closedByServer: closedByServer, elapsed: .now - start))
    }
}
