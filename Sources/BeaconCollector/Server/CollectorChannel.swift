import BeaconWire
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import Synchronization

/// Counts the collector's open connections against ``CollectorLimits/maxConnections``.
final class ConnectionGate: Sendable {
    let limit: Int
    private let open = Atomic<Int>(0)

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes a slot; false (and nothing taken) when every slot is in use.
    func tryEnter() -> Bool {
        let count = open.add(1, ordering: .relaxed).newValue
        if count > limit {
            open.subtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    /// Gives a slot back.
    func leave() {
        open.subtract(1, ordering: .relaxed)
    }

    /// The connections open now.
    var count: Int { open.load(ordering: .relaxed) }
}

/// Hummingbird's HTTP/1 channel with the collector's connection limits around it: a cap on
/// open connections (one more is answered 503 and closed), the idle timeout, the body read
/// timeout, and JSON answers to requests the HTTP parser refuses (``HTTPGuardHandler``).
struct CollectorChannel: ServerChildChannel {
    struct Value: ServerChildChannelValue {
        /// The HTTP channel of an admitted connection; `nil` for one refused over the cap.
        var http: HTTP1Channel.Value?
        var channel: any Channel
    }

    let http: HTTP1Channel
    let gate: ConnectionGate

    init(
        responder: @escaping HTTPChannelHandler.Responder, limits: CollectorLimits, shutdownBodyGrace: Duration = .seconds(5),
        gate: ConnectionGate
    ) {
        let bodyReadTimeout = TimeAmount(limits.bodyReadTimeout)
        let grace = TimeAmount(shutdownBodyGrace)
        http = HTTP1Channel(
            responder: responder,
            configuration: HTTP1Channel.Configuration(
                additionalChannelHandlers: [HTTPGuardHandler(bodyReadTimeout: bodyReadTimeout, shutdownBodyGrace: grace)],
                idleTimeout: TimeAmount(limits.idleTimeout)))
        self.gate = gate
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let gate = self.gate
        guard gate.tryEnter() else {
            logger.debug("connection refused: too many open", metadata: ["limit": "\(gate.limit)"])
            return channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(
                    LingeringAnswerHandler(answer: Self.tooManyConnectionsAnswer(limit: gate.limit)))
                return Value(http: nil, channel: channel)
            }
        }
        channel.closeFuture.whenComplete { _ in gate.leave() }
        return http.setup(channel: channel, logger: logger).map { Value(http: $0, channel: channel) }
    }

    func handle(value: Value, logger: Logger) async {
        if let connection = value.http { await http.handle(value: connection, logger: logger) }
    }

    /// The raw HTTP answer to a connection over the cap.
    static func tooManyConnectionsAnswer(limit: Int) -> [UInt8] {
        let error = CollectorError.tooManyConnections(limit: limit)
        let body = error.jsonBody
        let head =
            "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n"
            + "Retry-After: 1\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + body
    }
}

/// The body of a request did not arrive within ``CollectorLimits/bodyReadTimeout``.
struct BodyReadTimeout: Error {}

/// Sits between Hummingbird's HTTP codec and its connection handler, once per connection:
///
/// - **Body read timeout.** From a request's head to its end, at most `bodyReadTimeout`;
///   past it, the request's body stream fails with ``BodyReadTimeout`` (the ingest
///   answers 408 `body_timeout`) and the connection closes. Bytes trickling in keep
///   Hummingbird's idle timer from firing, so this is what cuts a slow body. Once the
///   server is stopping (its quiesce event), a body still arriving gets
///   `shutdownBodyGrace` more at most: a stalled upload does not hold the shutdown.
/// - **JSON framing refusals.** When NIO's HTTP parser refuses the bytes of a request's
///   head (bad Content-Length, headers over 80 KB, Content-Length with Transfer-Encoding,
///   bare LF, an unknown method…), the answer, after those of any requests pipelined
///   before it, is a JSON 400 `malformed_http` instead of Hummingbird's empty one; then
///   the connection closes (once the client stops sending, so the answer is not lost to a
///   reset). A parse error inside a request's body (bad chunked framing) is left to
///   Hummingbird: that request's handler sees its body fail.
final class HTTPGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let bodyReadTimeout: TimeAmount
    private let shutdownBodyGrace: TimeAmount
    private var bodyDeadline: Scheduled<Void>?
    /// When ``bodyDeadline`` fires.
    private var bodyDeadlineAt: NIODeadline?
    /// Requests whose head was read and whose answer has not ended.
    private var requestsOpen = 0
    /// True between a request's head and its end.
    private var readingBody = false
    /// True once the parser refused the bytes between requests: everything after is dropped.
    private var refused = false
    /// A framing error to answer once the requests before it are answered.
    private var pendingParseError: (any Error)?
    private var lingering: Scheduled<Void>?

    init(bodyReadTimeout: TimeAmount, shutdownBodyGrace: TimeAmount) {
        self.bodyReadTimeout = bodyReadTimeout
        self.shutdownBodyGrace = shutdownBodyGrace
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        switch unwrapInboundIn(data) {
        case .head:
            requestsOpen += 1
            readingBody = true
            scheduleBodyDeadline(context)
        case .body:
            break
        case .end:
            readingBody = false
            cancelBodyDeadline()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else { return context.write(data, promise: promise) }
        if requestsOpen > 0 { requestsOpen -= 1 }
        context.write(data, promise: promise)
        if requestsOpen == 0, let error = pendingParseError {
            pendingParseError = nil
            answerMalformed(context, error)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if refused { return }  // the decoder repeats its error for every byte after it
        guard error is HTTPParserError, !readingBody else {
            context.fireErrorCaught(error)
            return
        }
        refused = true
        cancelBodyDeadline()
        // Pipelined requests read before the bad bytes are answered first, in order.
        if requestsOpen == 0 { answerMalformed(context, error) } else { pendingParseError = error }
    }

    private func answerMalformed(_ context: ChannelHandlerContext, _ error: any Error) {
        let body = CollectorError.malformedHTTP(String(describing: error)).jsonBody
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        fields[.contentLength] = String(body.count)
        fields[.connection] = "close"
        context.write(wrapOutboundOut(.head(HTTPResponse(status: .badRequest, headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(bytes: body))), promise: nil)
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            let (handler, context) = loopBound.value
            // Stop sending, let the client finish and close; close anyway after a second.
            context.close(mode: .output, promise: nil)
            handler.lingering = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(1)) {
                context.close(promise: nil)
            }
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if refused, case ChannelEvent.inputClosed = event {
            context.close(promise: nil)
            return
        }
        if event is ChannelShouldQuiesceEvent, readingBody {
            // The server is stopping: the body still arriving gets the grace at most.
            let end = NIODeadline.now() + shutdownBodyGrace
            // An earlier deadline already armed stays.
            if bodyDeadlineAt.map({ $0 > end }) ?? true { scheduleBodyDeadline(context, at: end) }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelBodyDeadline()
        lingering?.cancel()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelBodyDeadline()
        lingering?.cancel()
    }

    private func scheduleBodyDeadline(_ context: ChannelHandlerContext, at end: NIODeadline? = nil) {
        cancelBodyDeadline()
        let end = end ?? NIODeadline.now() + bodyReadTimeout
        bodyDeadlineAt = end
        bodyDeadline = context.eventLoop.assumeIsolated().scheduleTask(deadline: end) {
            self.bodyDeadline = nil
            self.bodyDeadlineAt = nil
            context.fireErrorCaught(BodyReadTimeout())
        }
    }

    private func cancelBodyDeadline() {
        bodyDeadline?.cancel()
        bodyDeadline = nil
        bodyDeadlineAt = nil
    }
}

/// On a connection the collector will not serve: writes one raw answer, stops sending,
/// drops what the client sends, and closes once the client has finished (or after a second).
final class LingeringAnswerHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let answer: [UInt8]
    private var answered = false
    private var deadline: Scheduled<Void>?

    init(answer: [UInt8]) {
        self.answer = answer
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { answerOnce(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        answerOnce(context)
        context.fireChannelActive()
    }

    private func answerOnce(_ context: ChannelHandlerContext) {
        guard !answered else { return }
        answered = true
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(NIOAny(context.channel.allocator.buffer(bytes: answer))).whenComplete { _ in
            loopBound.value.close(mode: .output, promise: nil)
        }
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(1)) {
            context.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Dropped: this connection is not served.
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event {
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        context.fireChannelInactive()
    }
}
