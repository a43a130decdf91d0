import BeaconWire
import Beacon
import Foundation
import Logging

/// `clients` concurrent HTTP clients, each with its own kept-alive connection to one of the
/// `servers` (collectors, an agent) in turn, taking the next batch of a workload as soon as
/// their last one is answered, until every batch is posted once.
struct IngestClients {
    /// What one posting round came to.
    struct Outcome: Sendable {
        /// From the first request to the last answer.
        var elapsed: Duration
        /// Each request's time to its answer, in milliseconds, in no particular order.
        var latenciesMilliseconds: [Double]
        /// CPU seconds the servers used meanwhile, all together (`nil`: unknown).
        var serverCPUSeconds: Double?
        /// CPU seconds this process (the clients) used meanwhile.
        var clientCPUSeconds: Double
    }

    var servers: [ListeningChild]
    var clients: Int
    var logger: Logger

    /// Posts one event to each server (its connection, its store's first pages, its
    /// migrations), so that the timed round finds them warm.
    func warmUp() async throws {
        let warmUp = try IngestWorkload(events: servers.count, batchSize: 1, gzipLevel: 1)
        for (index, server) in servers.enumerated() {
            _ = try await IngestClients(servers: [server], clients: 1, logger: logger).post([warmUp.batches[index]])
        }
    }

    /// Posts every batch of `batches`; throws on the first answer that is not 200 (a
    /// benchmark counts only batches that were stored).
    func post(_ batches: [OutgoingBatch]) async throws -> Outcome {
        let senders = try (0..<clients).map { client in
            let port = servers[IngestWorkload.collector(forClient: client, collectors: servers.count)].port
            return HTTPSender(
                configuration: try HTTPSenderConfiguration(
                    endpoint: "http://127.0.0.1:\(port)", writeKey: nil, requestTimeout: .seconds(60)),
                logger: logger)
        }
        let cursor = IndexDispenser()
        let serversBefore = servers.map(\.cpuSeconds)
        let clientBefore = ProcessCPU.seconds
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
                            throw CLIError.runtime("benchmark clients: batch \(index) was answered \(result.status.map(String.init) ?? "no response") (\(result.outcome))")
                        }
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let elapsed = start.duration(to: .now)
        return Outcome(
            elapsed: elapsed, latenciesMilliseconds: latencies,
            serverCPUSeconds: Self.used(before: serversBefore, after: servers.map(\.cpuSeconds)),
            clientCPUSeconds: ProcessCPU.seconds - clientBefore)
    }

    /// The CPU seconds the servers used between two readings; `nil` when any reading is
    /// missing (an unknown is not counted as zero).
    static func used(before: [Double?], after: [Double?]) -> Double? {
        var total = 0.0
        for (start, end) in zip(before, after) {
            guard let start, let end, end >= start else { return nil }
            total += end - start
        }
        return total
    }
}
