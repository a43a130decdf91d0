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

/// Reads a request body as it streams in, never holding more than the limit: a plain
/// body is cut off past `limit` bytes, a gzip body is inflated chunk by chunk and cut
/// off as soon as its output passes `limit` (so a gzip bomb costs at most `limit` bytes).
enum BodyReader {
    /// The whole (decompressed) body.
    ///
    /// - Parameter timeout: the body read timeout, named in the 408 answer when the
    ///   connection's ``HTTPGuardHandler`` cuts a body that arrives too slowly.
    static func read(
        _ body: RequestBody, encoding: ContentEncoding, limit: Int, timeout: Duration = CollectorLimits.defaultBodyReadTimeout
    ) async throws(CollectorError) -> [UInt8] {
        var received = 0
        var plain: [UInt8] = []
        let inflater: GzipInflater?
        do {
            inflater = encoding == .gzip ? try GzipInflater(limit: limit) : nil
        } catch {
            throw CollectorError.invalidGzip(Self.describe(error))
        }
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
            received += buffer.readableBytes
            // The compressed size is held to the same limit as the inflated one.
            if received > limit { throw CollectorError.requestTooLarge(limit: limit) }
            if let inflater {
                let failure = buffer.withUnsafeReadableBytes { raw -> GzipInflater.Failure? in
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
            } else {
                buffer.withUnsafeReadableBytes { plain.append(contentsOf: $0) }
            }
        }
        guard let inflater else { return plain }
        guard inflater.finished else {
            throw CollectorError.invalidGzip(received == 0 ? "the body is empty" : "the stream ends before its end marker")
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
