import NIOCore
import NIOHTTP1

/// The last handler of an ``HTTP1Connection``'s pipeline: writes one ``HTTP1Exchange`` at a
/// time, gathers its response and completes its promise. Everything runs on the channel's
/// event loop, so the promise has one owner: a response, the timeout, an error or the
/// connection closing completes it, whichever comes first, and closes the connection
/// unless the response leaves it reusable.
final class HTTP1ExchangeHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = HTTP1Exchange
    typealias OutboundOut = HTTPClientRequestPart

    private struct Pending {
        var promise: EventLoopPromise<HTTP1Response>
        var bodyLimit: Int
        var timeout: Scheduled<Void>?
        var head: HTTPResponseHead?
        var body: ByteBuffer?
    }

    private var pending: Pending?

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let exchange = unwrapOutboundIn(data)
        guard pending == nil, context.channel.isActive else {
            let error: HTTP1ExchangeError = pending == nil
                ? .closedBeforeResponse : .protocolViolation("a request was written while another was in flight")
            exchange.promise.fail(error)
            promise?.fail(error)
            return
        }
        let loop = context.eventLoop.assumeIsolated()
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let timeout = loop.scheduleTask(in: exchange.timeout) {
            let (handler, context) = bound.value
            handler.finish(context: context, with: .failure(HTTP1ExchangeError.timedOut))
        }
        pending = Pending(promise: exchange.promise, bodyLimit: exchange.bodyLimit, timeout: timeout)
        context.write(wrapOutboundOut(.head(exchange.head)), promise: nil)
        if let body = exchange.body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard var current = pending else {
            // Bytes nobody asked for: the connection cannot be trusted with the next request.
            context.close(promise: nil)
            return
        }
        switch unwrapInboundIn(data) {
        case .head(let head):
            // An informational answer (1xx) is followed by the real one.
            if head.status.code < 200 { return }
            current.head = head
            pending = current
        case .body(var part):
            guard let head = current.head else {
                finish(context: context, with: .failure(HTTP1ExchangeError.protocolViolation("a response body came before its head")))
                return
            }
            let kept = current.body?.readableBytes ?? 0
            guard part.readableBytes <= current.bodyLimit - kept else {
                finishOverLimit(context: context, head: head)
                return
            }
            if current.body == nil {
                current.body = part
            } else {
                current.body?.writeBuffer(&part)
            }
            pending = current
        case .end:
            guard let head = current.head else {
                finish(context: context, with: .failure(HTTP1ExchangeError.protocolViolation("a response ended before its head")))
                return
            }
            let response = HTTP1Response(
                status: Int(head.status.code), headers: head.headers, body: current.body ?? ByteBuffer(),
                bodyComplete: true, keepAlive: head.isKeepAlive)
            finish(context: context, with: .success(response))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        let error: HTTP1ExchangeError = pending?.head == nil ? .closedBeforeResponse : .closedDuringResponse
        finish(context: context, with: .failure(error))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Between exchanges too (a response nobody asked for): the connection is spoilt.
        guard pending != nil else {
            context.close(promise: nil)
            return
        }
        finish(context: context, with: .failure(error))
    }

    /// The body went past the limit: the status is kept, the body dropped, the connection closed.
    private func finishOverLimit(context: ChannelHandlerContext, head: HTTPResponseHead) {
        let response = HTTP1Response(
            status: Int(head.status.code), headers: head.headers, body: ByteBuffer(), bodyComplete: false, keepAlive: false)
        finish(context: context, with: .success(response))
    }

    /// Completes the exchange in flight, if any, once; closes the connection unless the
    /// response leaves it reusable.
    private func finish(context: ChannelHandlerContext, with result: Result<HTTP1Response, any Error>) {
        guard let current = pending else { return }
        pending = nil
        current.timeout?.cancel()
        if case .success(let response) = result, response.keepAlive {
            current.promise.succeed(response)
            return
        }
        context.close(promise: nil)
        current.promise.completeWith(result)
    }
}
