import BeaconTesting
@testable import BeaconCollector
import Logging
import Testing

/// A refusal that every request meets is logged once per 10 s, not once per request
/// (the throttle itself: `LogThrottleTests` in BeaconWireTests).
@Suite("Collector log throttle")
struct CollectorLogThrottleTests {
    /// A store that is always full, as a full agent queue is.
    struct FullStore: StubCollectorStore {
        func insert(_ batch: AcceptedBatch) async throws -> StoreInsertResult {
            throw StoreUnavailableError(reason: "10 of 10 events queued", retryAfterSeconds: 5, cause: .full)
        }
    }

    @Test("300 requests refused by a full store: one line of each kind, not 600")
    func refusalsAreNotLoggedPerRequest() async throws {
        let lines = LogLines()
        let logger = Logger(label: "test.collector") { _ in CapturingLogHandler(lines: lines) }
        let collector = try Collector(configuration: CollectorConfiguration(), store: FullStore(), logger: logger)
        let statuses = try await collector.withRunning { port in
            try await withClient(port: port) { client in
                var statuses: [Int: Int] = [:]
                for index in 0..<300 {
                    let answer = try await call(client, .post, "/v1/batch", body: batchBody([trackJSON(messageId: "full-\(index)")]))
                    statuses[answer.status, default: 0] += 1
                }
                return statuses
            }
        }
        #expect(statuses == [503: 300])
        let logged = lines.all
        #expect(logged.filter { $0.contains("the queue is full") }.count == 1, "\(logged.prefix(5))")
        #expect(logged.filter { $0.contains("request failed") }.count == 1, "\(logged.prefix(5))")
    }
}
