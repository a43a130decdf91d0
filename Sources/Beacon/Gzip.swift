import CZlib

/// Gzip compression for request bodies (`Content-Encoding: gzip`), over the system zlib.
///
/// ```swift
/// let body = try Gzip.compress(batch.body(), level: Gzip.defaultLevel)
/// ```
public enum Gzip {
    /// zlib's default trade-off between speed and size (6).
    public static let defaultLevel = 6

    /// Compresses `bytes` into one gzip member (RFC 1952).
    ///
    /// - Parameter level: 0 (store only) to 9 (smallest); ``defaultLevel`` unless told.
    /// - Throws: ``GzipError`` when the level is out of range, the input is larger than
    ///   zlib takes in one call (4 GiB), or zlib reports a failure.
    public static func compress(_ bytes: [UInt8], level: Int = defaultLevel) throws(GzipError) -> [UInt8] {
        guard (0...9).contains(level) else { throw GzipError(.invalidLevel, message: "level \(level) is not in 0...9") }
        guard bytes.count <= Int(UInt32.max) else {
            throw GzipError(.inputTooLarge, message: "\(bytes.count) bytes is more than one deflate call takes")
        }
        var stream = z_stream()
        let initStatus = beacon_deflateInit2(&stream, Int32(level))
        guard initStatus == Z_OK else { throw GzipError(.zlib(initStatus), message: "deflateInit2 failed") }
        defer { deflateEnd(&stream) }

        // deflateBound covers the gzip header and trailer for a single Z_FINISH call;
        // the loop below still grows the buffer if zlib ever asks for more.
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))))
        var produced = 0
        let status: Int32 = bytes.withUnsafeBufferPointer { inBuffer in
            // zlib never writes through next_in; the pointer is mutable only in its C type.
            stream.next_in = inBuffer.baseAddress.map { UnsafeMutablePointer(mutating: $0) }
            stream.avail_in = uInt(inBuffer.count)
            while true {
                if produced == output.count { output.append(contentsOf: repeatElement(0, count: max(64, output.count / 2))) }
                let result: Int32 = output.withUnsafeMutableBufferPointer { outBuffer in
                    stream.next_out = outBuffer.baseAddress! + produced
                    stream.avail_out = uInt(outBuffer.count - produced)
                    let result = deflate(&stream, Z_FINISH)
                    produced = outBuffer.count - Int(stream.avail_out)
                    return result
                }
                // Z_OK and Z_BUF_ERROR mean "more output space needed": loop and grow.
                if result != Z_OK && result != Z_BUF_ERROR { return result }
            }
        }
        guard status == Z_STREAM_END else { throw GzipError(.zlib(status), message: "deflate did not finish") }
        output.removeSubrange(produced...)
        return output
    }
}

/// Why ``Gzip/compress(_:level:)`` failed.
public struct GzipError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Kind: Sendable, Hashable {
        /// The compression level is outside 0...9.
        case invalidLevel
        /// The input is larger than one deflate call takes.
        case inputTooLarge
        /// zlib returned this status code (`Z_MEM_ERROR`, `Z_STREAM_ERROR`, ...).
        case zlib(Int32)
    }

    /// The kind of failure.
    public var kind: Kind
    /// What went wrong, for logs.
    public var message: String

    /// Creates an error of `kind` described by `message`.
    public init(_ kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// `gzip: <message>`, with the zlib status when there is one.
    public var description: String {
        if case .zlib(let code) = kind { return "gzip: \(message) (zlib status \(code))" }
        return "gzip: \(message)"
    }
}
