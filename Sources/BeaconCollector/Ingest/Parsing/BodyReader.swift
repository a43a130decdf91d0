import Hummingbird

/// How a request body is encoded.
enum ContentEncoding: Sendable, Hashable {
    case identity
    case gzip

    /// Reads the `Content-Encoding` header: none or `identity` is plain; `gzip`, `x-gzip`
    /// and `deflate` (zlib) are inflated; anything else is refused with 415.
    static func parse(_ header: String?) throws(CollectorError) -> ContentEncoding {
        guard let header else { return .identity }
        switch header.trimmingCharacters(in: .whitespaces).lowercased() {
        case "", "identity": return .identity
        case "gzip", "x-gzip", "deflate": return .gzip
        default: throw CollectorError.unsupportedEncoding(header)
        }
    }
}

/// Reads a request body as it streams in, never holding more than the limit: a body is
/// cut off past `limit` bytes as it arrives (compressed or not), and a gzip body is then
/// inflated under the same cap (so a gzip bomb costs at most `limit` bytes of output):
/// in one call by libdeflate when that is sure of the answer (``GzipFastPath``), else by
/// zlib (``GzipInflater``), whose refusals are the collector's.
enum BodyReader {
    /// The whole (decompressed) body.
    ///
    /// - Parameter timeout: the body read timeout, named in the 408 answer when the
    ///   connection's ``HTTPGuardHandler`` cuts a body that arrives too slowly.
    static func read(
        _ body: RequestBody, encoding: ContentEncoding, limit: Int, timeout: Duration = CollectorLimits.defaultBodyReadTimeout
    ) async throws(CollectorError) -> [UInt8] {
        var received: [UInt8] = []
        var iterator = body.makeAsyncIterator()
        while true {
            let next: ByteBuffer?
            do {
                next = try await iterator.next()
            } catch is BodyReadTimeout {
                throw CollectorError.bodyTimeout(timeout)
            } catch {
                throw CollectorError.bodyReadFailed()
            }
            guard let buffer = next else { break }
            // The compressed size is held to the same limit as the inflated one.
            if buffer.readableBytes > limit - received.count { throw CollectorError.requestTooLarge(limit: limit) }
            buffer.withUnsafeReadableBytes { received.append(contentsOf: $0) }
        }
        guard encoding == .gzip else { return received }
        return try inflateGzip(received, limit: limit)
    }

    /// Inflates a whole gzip body under `limit`: libdeflate in one call when it is sure of
    /// the answer (``GzipFastPath``), else zlib.
    static func inflateGzip(_ compressed: [UInt8], limit: Int) throws(CollectorError) -> [UInt8] {
        if let inflated = GzipFastPath.inflate(compressed, limit: limit) { return inflated }
        return try inflateWithZlib(compressed, limit: limit)
    }

    /// Inflates `compressed` with zlib under `limit`: the reference, whose refusals are the collector's.
    static func inflateWithZlib(_ compressed: [UInt8], limit: Int) throws(CollectorError) -> [UInt8] {
        let inflater: GzipInflater
        let failure: GzipInflater.Failure?
        do throws(GzipInflater.Failure) {
            inflater = try GzipInflater(limit: limit)
        } catch {
            throw CollectorError.invalidGzip(Self.describe(error))
        }
        failure = compressed.withUnsafeBytes { raw -> GzipInflater.Failure? in
            do throws(GzipInflater.Failure) {
                try inflater.feed(raw)
                return nil
            } catch {
                return error
            }
        }
        switch failure {
        case nil: break
        case .tooLarge: throw CollectorError.decompressedTooLarge(limit: limit)
        case .corrupt(let reason): throw CollectorError.invalidGzip(reason)
        }
        guard inflater.finished else {
            throw CollectorError.invalidGzip(compressed.isEmpty ? "the body is empty" : "the stream ends before its end marker")
        }
        return inflater.output
    }

    private static func describe(_ failure: GzipInflater.Failure) -> String {
        switch failure {
        case .tooLarge: return "it inflates past the limit"
        case .corrupt(let reason): return reason
        }
    }
}
