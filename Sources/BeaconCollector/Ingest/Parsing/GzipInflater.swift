import CZlib

/// Inflates a gzip (or zlib) stream chunk by chunk, refusing to produce more than a cap:
/// a gzip bomb is stopped after `limit` bytes instead of being inflated whole.
final class GzipInflater {
    /// Why inflating stopped.
    enum Failure: Error, Sendable, Hashable {
        /// The output would exceed the cap.
        case tooLarge
        /// The stream is corrupt, with zlib's reason.
        case corrupt(String)
    }

    private var stream = z_stream()
    private let limit: Int
    /// The bytes inflated so far.
    private(set) var output: [UInt8] = []
    /// True once the compressed stream's end marker was read.
    private(set) var finished = false

    /// Prepares an inflater that produces at most `limit` bytes.
    init(limit: Int) throws(Failure) {
        self.limit = limit
        let status = beacon_inflateInit2(&stream)
        guard status == Z_OK else { throw Failure.corrupt("zlib could not start (status \(status))") }
    }

    deinit {
        inflateEnd(&stream)
    }

    /// Feeds compressed bytes. Bytes after the end of the stream are ignored.
    func feed(_ input: UnsafeRawBufferPointer) throws(Failure) {
        guard !finished, input.count > 0 else { return }
        let base = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress!)
        stream.next_in = base
        stream.avail_in = uInt(input.count)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        repeat {
            let status: Int32 = chunk.withUnsafeMutableBufferPointer { buffer in
                stream.next_out = buffer.baseAddress
                stream.avail_out = uInt(buffer.count)
                return inflate(&stream, Z_NO_FLUSH)
            }
            let produced = chunk.count - Int(stream.avail_out)
            if output.count + produced > limit { throw Failure.tooLarge }
            output.append(contentsOf: chunk[0..<produced])
            switch status {
            case Z_STREAM_END:
                finished = true
            case Z_OK:
                break
            case Z_BUF_ERROR:
                // No progress is possible with this input: wait for the next chunk.
                stream.next_in = nil
                stream.avail_in = 0
                return
            default:
                let reason = stream.msg.map { String(cString: $0) } ?? "zlib status \(status)"
                throw Failure.corrupt(reason)
            }
        } while !finished && (stream.avail_in > 0 || stream.avail_out == 0)
        stream.next_in = nil
        stream.avail_in = 0
    }
}
