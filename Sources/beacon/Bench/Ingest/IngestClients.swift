import BeaconWire
import Beacon
import Foundation
import Logging

/// `clients` concurrent HTTP clients, each with its own kept-alive connection, taking the
/// next batch of a workload as soon as their last one is answered, until every batch is
/// posted once.
struct IngestClients {
    /// What one posting round came to.
    struct Outcome: Sendable {
        /// From the first request to the last answer.
        var elapsed: Duration
        /// Each request's time to its answer, in milliseconds, in no particular order.
        var latenciesMilliseconds: [Double]
    }

    var ports: [Int]
    var clients: Int
    var logger: Logger

    /// Posts every batch of `batches`; throws on the first answer that is not 200 (a
    /// benchmark counts only batches that were stored).
    func post(_ batches: [OutgoingBatch]) async throws -> Outcome {
        let senders = try (0..<clients).map { client in
            let port = ports[IngestWorkload.collector(forClient: client, collectors: ports.count)]
            return HTTPSender(
                configuration: try HTTPSenderConfiguration(
                    endpoint: "http://127.0.0.1:\(port)", writeKey: nil, requestTimeout: .seconds(60)),
                logger: logger)
        }
        let cursor = IndexDispenser()
        let start = ContinuousClock.now
        let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
            for sender in senders {
                group.addTask {
                    var latencies: [Double] = []
                    while true {
                        guard let index = cursor.take(below: batches.count) else { return latencies }
                        let sent = ContinuousClock.now
                        let result = await sender.send(batches[index])
                        latencies.append(sent.duration(to: .now).inSeconds * 1000)
                        guard result.status == 200 else {
                            throw CLIError.runtime("ingest benchmark: batch \(index) was answered \(result.status.map(String.init) ?? "no response") (\(result.outcome))")
                        }
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        return Outcome(elapsed: start.duration(to: .now), latenciesMilliseconds: latencies)
    }
}
