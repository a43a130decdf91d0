import NIOCore

/// One frame of the control channel: a line (newline and a trailing `\r` removed), or
/// the news that a line went past the limit (its bytes are discarded up to the next
/// newline, so memory stays bounded whatever a peer sends).
enum ControlLine: Sendable, Hashable {
    case line([UInt8])
    case tooLong
}

/// Cuts the byte stream into ``ControlLine``s of at most `maxBytes`.
struct ControlLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = ControlLine

    let maxBytes: Int
    /// Inside a line that went past the limit: drop bytes until its newline.
    private var discarding = false
    /// Readable bytes already searched for a newline: a long line arriving in many reads
    /// is searched once, not once per read.
    private var searched = 0

    init(maxBytes: Int) { self.maxBytes = maxBytes }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let view = buffer.readableBytesView
        let start = view.index(view.startIndex, offsetBy: min(searched, view.count))
        if let newline = view[start...].firstIndex(of: UInt8(ascii: "\n")) {
            searched = 0
            let length = view.distance(from: view.startIndex, to: newline)
            if discarding || length > maxBytes {
                buffer.moveReaderIndex(forwardBy: length + 1)
                if !discarding { context.fireChannelRead(wrapInboundOut(.tooLong)) }
                discarding = false
                return .continue
            }
            var line = buffer.readBytes(length: length) ?? []
            buffer.moveReaderIndex(forwardBy: 1)
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            context.fireChannelRead(wrapInboundOut(.line(line)))
            return .continue
        }
        searched = view.count
        if buffer.readableBytes > maxBytes {
            if !discarding { context.fireChannelRead(wrapInboundOut(.tooLong)) }
            discarding = true
            buffer.moveReaderIndex(to: buffer.writerIndex)
            searched = 0
        }
        return .needMoreData
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        // A last line without its newline is not a request: it is dropped with the connection.
        buffer.moveReaderIndex(to: buffer.writerIndex)
        return .needMoreData
    }
}
