import Foundation

/// The raw-POST limit of a delivery benchmark: the very request bodies an engine sent
/// (already encoded and gzipped), posted back to back over one kept-alive connection,
/// one in flight, each answered before the next goes, on a thread of its own.
struct RawPostReplayer {
    /// What a replay measured.
    struct Result {
        /// From the first byte sent to the last response read.
        var elapsed: Duration
        /// Each request's round trip, in order.
        var roundTrips: [Duration]
    }

    var bodies: [[UInt8]]
    var gzip: Bool
    var path = "/v1/batch"

    /// Posts every body to 127.0.0.1:`port`; fails on the first answer that is not 200.
    func replay(port: Int) async throws -> Result {
        let bodies = bodies
        let gzip = gzip
        let path = path
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                do {
                    let connection = try RawHTTPConnection(port: port)
                    var roundTrips: [Duration] = []
                    roundTrips.reserveCapacity(bodies.count)
                    let start = ContinuousClock.now
                    var last = start
                    for (index, body) in bodies.enumerated() {
                        let response = try connection.post(path, body: body, gzip: gzip)
                        guard response.status == 200 else {
                            throw CLIError.runtime(
                                "bench: the collector answered \(response.status) to replayed batch \(index + 1): "
                                    + String(decoding: response.body.prefix(300), as: UTF8.self))
                        }
                        let now = ContinuousClock.now
                        roundTrips.append(now - last)
                        last = now
                    }
                    continuation.resume(returning: Result(elapsed: last - start, roundTrips: roundTrips))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
