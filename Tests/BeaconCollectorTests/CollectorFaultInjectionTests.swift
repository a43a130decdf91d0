import BeaconCollector
import BeaconTesting
import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

/// Faults are applied as planned, deterministically for a seed, and can be changed at runtime.
@Suite("Collector fault injection")
struct CollectorFaultInjectionTests {
    /// Sends `count` one-event batches and returns the statuses.
    static func statuses(port: Int, count: Int, prefix: String) async throws -> [Int] {
        try await withClient(port: port) { client in
            var statuses: [Int] = []
            for index in 0..<count {
                let answer = try await call(
                    client, .post, "/v1/batch", body: batchBody([trackJSON(messageId: "\(prefix)-\(index)")]))
                statuses.append(answer.status)
            }
            return statuses
        }
    }

    @Test("A 30% failure rate over 200 requests lands near 30%, and the same seed repeats the sequence")
    func failRateIsAppliedDeterministically() async throws {
        let configuration = CollectorConfiguration(faultPlan: FaultPlan(failRate: 0.3), seed: 42)
        let first = try await withCollector(configuration) { collector, port in
            let statuses = try await Self.statuses(port: port, count: 200, prefix: "f")
            let failures = statuses.filter { $0 == 500 }.count
            #expect((40...80).contains(failures), "\(failures) failures out of 200")
            #expect(statuses.allSatisfy { $0 == 200 || $0 == 500 })
            #expect(try await collector.storedCount() == 200 - failures)
            #expect(collector.stats().faulted == failures)
            #expect(collector.stats().errorsByCode["injected_failure"] == failures)
            return statuses
        }
        let second = try await withCollector(configuration) { _, port in
            try await Self.statuses(port: port, count: 200, prefix: "f")
        }
        #expect(first == second)
    }

    @Test("An injected 429 carries Retry-After")
    func throttleCarriesRetryAfter() async throws {
        let plan = FaultPlan(throttleRate: 1, retryAfterSeconds: 7)
        try await withCollector(CollectorConfiguration(faultPlan: plan)) { collector, port in
            let answer = try await withClient(port: port) { client in
                try await call(client, .post, "/v1/batch", body: batchBody([trackJSON(messageId: "t-1")]))
            }
            #expect(answer.status == 429)
            #expect(answer.headers[.retryAfter] == "7")
            #expect(answer.errorCode == "injected_throttle")
            #expect(try await collector.storedCount() == 0)
        }
    }

    @Test("Batches above N events get 413; N events pass")
    func batchSizeLimit() async throws {
        try await withCollector(CollectorConfiguration(faultPlan: FaultPlan(maxBatchEvents: 10))) { collector, port in
            try await withClient(port: port) { client in
                let big = try await call(client, .post, "/v1/batch", body: batchBody((0..<11).map { trackJSON(messageId: "b-\($0)") }))
                #expect(big.status == 413)
                #expect(big.errorCode == "injected_batch_too_large")
                let fits = try await call(client, .post, "/v1/batch", body: batchBody((0..<10).map { trackJSON(messageId: "b-\($0)") }))
                #expect(fits.status == 200)
            }
            #expect(try await collector.storedCount() == 10)
        }
    }

    @Test("Down answers 503 except /health and /admin; the admin route brings it back up")
    func downAndAdminRoute() async throws {
        try await withCollector(CollectorConfiguration(faultPlan: .down)) { collector, port in
            try await withClient(port: port) { client in
                let batch = try await call(client, .post, "/v1/batch", body: batchBody([trackJSON(messageId: "d-1")]))
                #expect(batch.status == 503)
                #expect(batch.errorCode == "collector_down")
                #expect(try await call(client, .get, "/v1/stats").status == 503)
                #expect(try await call(client, .get, "/health").status == 200)

                let current = try await call(client, .get, "/admin/faults")
                #expect(current.status == 200)
                #expect(current.json["down"] as? Bool == true)
                #expect(current.json["preset"] as? String == "down")

                let invalid = try await call(client, .put, "/admin/faults", body: bytes(#"{"failRate":1.5}"#))
                #expect(invalid.status == 400)
                #expect(invalid.errorCode == "invalid_fault_plan")
                let notJSON = try await call(client, .put, "/admin/faults", body: bytes("down please"))
                #expect(notJSON.errorCode == "invalid_fault_plan")

                let up = try await call(client, .put, "/admin/faults", body: bytes(#"{"down":false,"throttleRate":1,"retryAfter":3}"#))
                #expect(up.status == 200)
                #expect(up.json["down"] as? Bool == false)
                let throttled = try await call(client, .post, "/v1/batch", body: batchBody([trackJSON(messageId: "d-1")]))
                #expect(throttled.status == 429)
                #expect(throttled.headers[.retryAfter] == "3")

                let preset = try await call(client, .put, "/admin/faults", body: bytes(#"{"preset":"none"}"#))
                #expect(preset.json["preset"] as? String == "none")
                let stored = try await call(client, .post, "/v1/batch", body: batchBody([trackJSON(messageId: "d-1")]))
                #expect(stored.status == 200)
            }
            #expect(collector.faultPlan() == FaultPlan.none)
            #expect(try await collector.storedMessageIds() == ["d-1"])
        }
    }

    @Test("The fault API's keys are the flags' names; the former names still read; an unknown key is refused by name")
    func faultKeysAreNamedAsTheFlags() async throws {
        try await withCollector { collector, port in
            try await withClient(port: port) { client in
                let current = try await call(client, .put, "/admin/faults", body: bytes(#"{"latencyMs":5,"retryAfter":7,"throttleRate":0.5}"#))
                #expect(current.status == 200, "\(current.text)")
                #expect(current.json["latencyMs"] as? Int == 5 && current.json["retryAfter"] as? Int == 7, "\(current.text)")
                #expect(current.json["latencyMilliseconds"] == nil && current.json["retryAfterSeconds"] == nil, "\(current.text)")
                #expect(collector.faultPlan() == FaultPlan(throttleRate: 0.5, retryAfterSeconds: 7, latencyMilliseconds: 5))

                let former = try await call(client, .put, "/admin/faults", body: bytes(#"{"latencyMilliseconds":9,"retryAfterSeconds":3}"#))
                #expect(former.status == 200 && former.json["latencyMs"] as? Int == 9 && former.json["retryAfter"] as? Int == 3, "\(former.text)")

                let both = try await call(client, .put, "/admin/faults", body: bytes(#"{"latencyMs":1,"latencyMilliseconds":2}"#))
                #expect(both.status == 400 && both.errorCode == "invalid_fault_plan" && both.text.contains("latencyMilliseconds"), "\(both.text)")
                let misspelt = try await call(client, .put, "/admin/faults", body: bytes(#"{"latency":200}"#))
                #expect(misspelt.status == 400 && misspelt.text.contains("'latency' is not a fault plan key"), "\(misspelt.text)")
                #expect(misspelt.text.contains("latencyMs"), "the refusal lists the keys: \(misspelt.text)")
                let hostile = try await call(client, .put, "/admin/faults", body: bytes("{\"\(String(repeating: "k", count: 5_000))\\u0000\":1}"))
                #expect(hostile.status == 400 && hostile.text.count < 1_000, "\(hostile.text.prefix(300))")
                let range = try await call(client, .put, "/admin/faults", body: bytes(#"{"latencyMs":60001}"#))
                #expect(range.status == 400 && range.text.contains("latencyMs is 60001"), "\(range.text)")

                // A plan read back is a plan: GET's document (with its preset and seed) PUT again.
                _ = try await call(client, .put, "/admin/faults", body: bytes(#"{"failRate":0.25}"#))
                let document = try await call(client, .get, "/admin/faults")
                #expect(document.json["preset"] as? String == "custom", "\(document.text)")
                _ = try await call(client, .put, "/admin/faults", body: bytes(#"{"preset":"none"}"#))
                let roundTrip = try await call(client, .put, "/admin/faults", body: Array(document.text.utf8))
                #expect(roundTrip.status == 200 && roundTrip.text == document.text, "\(roundTrip.text)")
            }
            #expect(collector.faultPlan() == FaultPlan(failRate: 0.25))
        }
    }

    @Test("The programmatic API sets and reads the plan; presets cycle")
    func programmaticFaultPlan() async throws {
        try await withCollector { collector, port in
            #expect(throws: FaultPlanError.self) { try collector.setFaultPlan(FaultPlan(failRate: 0.7, throttleRate: 0.7)) }
            for (name, plan) in FaultPlan.presets {
                try collector.setFaultPlan(plan)
                #expect(collector.faultPlan().presetName == name)
            }
            try collector.setFaultPlan(FaultPlan(failRate: 1))
            let statuses = try await Self.statuses(port: port, count: 3, prefix: "p")
            #expect(statuses == [500, 500, 500])
        }
    }

    @Test("A reset closes the connection without a response, and the collector keeps serving")
    func resetClosesConnection() async throws {
        try await withCollector(CollectorConfiguration(faultPlan: FaultPlan(resetRate: 1))) {
            (collector: Collector, port: Int) async throws -> Void in
            await #expect(throws: (any Error).self) {
                try await withClient(port: port, timeout: .seconds(5)) { client in
                    try await call(client, .post, "/v1/batch", body: batchBody([trackJSON(messageId: "r-1")]))
                }
            }
            let health = try await withClient(port: port) { client in try await call(client, .get, "/health") }
            #expect(health.status == 200)
            #expect(collector.stats().responsesByStatus["reset"] == 1)
            #expect(try await collector.storedCount() == 0)
        }
    }

    @Test("A hang holds the request past the client's timeout; shutdown releases it")
    func hangOutlastsClientTimeout() async throws {
        let plan = FaultPlan(hangRate: 1, hangSeconds: 20)
        let clock = ContinuousClock()
        let started = clock.now
        let answered = AnsweredFlag()
        let (client, request) = try await withCollector(CollectorConfiguration(faultPlan: plan)) { collector, port in
            let client = TestClient(host: "127.0.0.1", port: port)
            client.connect()
            let request = Task {
                do {
                    _ = try await call(client, .post, "/v1/batch", body: batchBody([trackJSON(messageId: "h-1")]))
                } catch {
                    // The connection closed as the collector shut down: what the end of this test expects.
                }
                answered.set()
            }
            // A sender with a 300 ms timeout would give up here: nothing has come back.
            // ("Not answered within 300 ms" is a window by nature: the hang signals nothing
            // when it starts, and the release at shutdown below is the positive check.)
            try await Task.sleep(for: .milliseconds(300))
            #expect(!answered.isSet)
            #expect(try await collector.storedCount() == 0)
            return (client, request)
        }
        // The collector has shut down: the held request is released, well before the 20 s hang ends.
        await request.value
        try await client.shutdown()
        // A bound on behaviour, not on speed: less than the 20 s hang itself.
        #expect(clock.now - started < .seconds(19))
    }

    @Test("A short hang answers 503 after the hang; latency delays each batch")
    func shortHangAndLatency() async throws {
        let clock = ContinuousClock()
        try await withCollector(CollectorConfiguration(faultPlan: FaultPlan(latencyMilliseconds: 150))) { collector, port in
            try await withClient(port: port) { client in
                let started = clock.now
                let answer = try await call(client, .post, "/v1/batch", body: batchBody([trackJSON(messageId: "l-1")]))
                #expect(answer.status == 200)
                #expect(clock.now - started >= .milliseconds(150))

                try collector.setFaultPlan(FaultPlan(hangRate: 1, hangSeconds: 0.3))
                let hangStarted = clock.now
                let hung = try await call(client, .post, "/v1/batch", body: batchBody([trackJSON(messageId: "l-2")]))
                #expect(hung.status == 503)
                #expect(hung.errorCode == "injected_hang")
                #expect(clock.now - hangStarted >= .milliseconds(300))
            }
        }
    }

    @Test("The request log keeps arrival times, routes, statuses and event counts, bounded")
    func requestLog() async throws {
        let configuration = CollectorConfiguration(faultPlan: FaultPlan(failRate: 0.5), seed: 7, requestLogCapacity: 8)
        try await withCollector(configuration) { collector, port in
            let statuses = try await Self.statuses(port: port, count: 12, prefix: "q")
            let log = collector.requestLog()
            #expect(log.count == 8)
            #expect(log.map(\.sequence) == Array(4..<12))
            #expect(log.map(\.status) == Array(statuses.suffix(8)))
            #expect(log.allSatisfy { $0.route == "/v1/batch" && $0.method == "POST" && $0.events == 1 })
            #expect(zip(log, log.dropFirst()).allSatisfy { $0.secondsSinceStart <= $1.secondsSinceStart })
            #expect(log.filter { $0.status == 500 }.allSatisfy { $0.fault == "failure" && $0.errorCode == "injected_failure" })
        }
    }
}

/// Whether a request got an answer, set from the task that made it.
private final class AnsweredFlag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
