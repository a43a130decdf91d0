import Beacon
import BeaconWire
import BeaconDashboard

/// Snapshots for golden renders: fixed times, no clocks, shapes like the engine's.
enum Fixtures {
    /// 2025-11-22T00:00:00Z.
    static let t0: Int64 = 1_763_769_600_000
    static let endpoint = "http://127.0.0.1:8080/v1/batch"
    static let longStorePath = "/home/operator/services/checkout-api/var/lib/beacon/queues/production/events.sqlite"

    static func time(_ offsetMilliseconds: Int64) -> EngineSnapshot {
        EngineSnapshot(time: .init(millisecondsSince1970: t0 + offsetMilliseconds))
    }

    static func base() -> EngineSnapshot {
        var snapshot = time(0)
        snapshot.endpoint = endpoint
        snapshot.storePath = "/var/lib/beacon/queue.sqlite"
        snapshot.policy = .default
        snapshot.batchSize = 100
        snapshot.maxBatchBytes = 500_000
        snapshot.destinations = [DestinationStatus(name: "default", endpoint: endpoint, depth: 0, state: .idle)]
        return snapshot
    }

    /// A batch record `ago` milliseconds before t0.
    static func batch(
        _ id: Int64, ago: Int64 = 0, events: Int = 100, bytes: Int = 24_300, milliseconds: Int64 = 6, attempt: Int = 1,
        status: Int? = 200, outcome: BatchOutcome = .sent, error: String? = nil, destination: String = "default"
    ) -> BatchRecord {
        BatchRecord(
            id: id, destination: destination, startedAt: .init(millisecondsSince1970: t0 - ago),
            duration: .milliseconds(milliseconds), events: events, bytes: bytes, attempt: attempt, status: status,
            outcome: outcome, error: error)
    }

    /// Nothing tracked yet.
    static func empty() -> EngineSnapshot { base() }

    /// Events in and out at about 120/s, the queue hovering around a batch.
    static func steady() -> EngineSnapshot {
        var snapshot = base()
        snapshot.depth = 42
        snapshot.queuedBytes = 10_206
        snapshot.depthHistory = (0..<240).map { 20 + ($0 * 37 % 83) % 81 }
        snapshot.rateIn = 120.4
        snapshot.rateOut = 118.6
        snapshot.totals = .init(accepted: 48_342, delivered: 48_300, batchesSent: 483)
        snapshot.latency = .init(p50: .microseconds(5_400), p99: .milliseconds(38))
        snapshot.recentBatches = (0..<60).map { index in
            batch(Int64(483 - index), ago: Int64(index) * 830, events: 100, bytes: 24_300 + index * 17 % 900,
                  milliseconds: Int64(4 + index * 7 % 9))
        }
        snapshot.destinations = [DestinationStatus(
            name: "default", endpoint: endpoint, depth: 42, state: .sending, oldestPendingAt: .init(millisecondsSince1970: t0 - 350),
            lastSuccessAt: .init(millisecondsSince1970: t0 - 120))]
        return snapshot
    }

    /// Sending switched off while events keep coming: the queue grows.
    static func offlineBacklog() -> EngineSnapshot {
        var snapshot = base()
        snapshot.isOffline = true
        snapshot.storePath = longStorePath
        snapshot.depth = 12_400
        snapshot.queuedBytes = 3_013_200
        snapshot.depthHistory = (0..<90).map { $0 < 20 ? 30 + $0 % 4 : ($0 - 20) * 177 }
        snapshot.rateIn = 100
        snapshot.rateOut = 0
        snapshot.totals = .init(accepted: 14_800, delivered: 2_400, batchesSent: 24)
        snapshot.latency = .init(p50: .milliseconds(7), p99: .milliseconds(21))
        snapshot.recentBatches = (0..<5).map { batch(Int64(24 - $0), ago: 70_000 + Int64($0) * 1000) }
        snapshot.destinations = [DestinationStatus(name: "default", endpoint: endpoint, depth: 12_400, state: .offline)]
        return snapshot
    }

    /// The collector answers 503: the head batch is retried with growing backoff.
    static func outageWithRetries() -> EngineSnapshot {
        var snapshot = base()
        snapshot.policy = .count(50)
        snapshot.batchSize = 50
        snapshot.depth = 1_850
        snapshot.queuedBytes = 449_550
        snapshot.depthHistory = (0..<60).map { $0 < 25 ? 40 : 40 + ($0 - 25) * 52 }
        snapshot.rateIn = 52
        snapshot.rateOut = 0
        snapshot.totals = .init(accepted: 9_350, delivered: 7_500, batchesSent: 150, retried: 6)
        snapshot.latency = .init(p50: .milliseconds(6), p99: .milliseconds(1_204))
        let unavailable = "HTTP 503 Service Unavailable"
        snapshot.recentBatches = [
            batch(151, ago: 1_000, events: 50, bytes: 12_150, milliseconds: 3, attempt: 6, status: 503, outcome: .retry, error: unavailable),
            batch(151, ago: 9_000, events: 50, bytes: 12_150, milliseconds: 2, attempt: 5, status: 503, outcome: .retry, error: unavailable),
            batch(151, ago: 13_000, events: 50, bytes: 12_150, milliseconds: 5, attempt: 4, status: 503, outcome: .retry, error: unavailable),
            batch(151, ago: 15_000, events: 50, bytes: 12_150, milliseconds: 10_000, attempt: 3, status: nil, outcome: .retry,
                  error: "timed out after 10 s waiting for the collector"),
            batch(151, ago: 26_000, events: 50, bytes: 12_150, milliseconds: 2, attempt: 2, status: 429, outcome: .retry,
                  error: "HTTP 429 Too Many Requests (Retry-After: 10)"),
            batch(151, ago: 27_000, events: 50, bytes: 12_150, milliseconds: 4, attempt: 1, status: 503, outcome: .retry, error: unavailable),
        ] + (0..<6).map { batch(Int64(150 - $0), ago: 28_000 + Int64($0) * 900, events: 50, bytes: 12_150) }
        snapshot.destinations = [
            DestinationStatus(name: "default", endpoint: endpoint, depth: 1_850,
                              state: .backingOff(until: .init(millisecondsSince1970: t0 + 7_250)),
                              consecutiveFailures: 6, lastError: unavailable,
                              oldestPendingAt: .init(millisecondsSince1970: t0 - 95_000),
                              lastSuccessAt: .init(millisecondsSince1970: t0 - 28_000 - 62_000), stalled: true)
        ]
        snapshot.lastError = "default: HTTP 503 Service Unavailable (6 failures in a row, next try in 7.25 s)"
        return snapshot
    }

    /// Single events refused with 400 go to the dead-letter table; a 413 split a batch.
    static func deadLetters() -> EngineSnapshot {
        var snapshot = base()
        snapshot.depth = 3
        snapshot.queuedBytes = 729
        snapshot.depthHistory = (0..<30).map { $0 % 10 == 9 ? 0 : $0 % 10 * 11 }
        snapshot.rateIn = 9.5
        snapshot.rateOut = 9.5
        snapshot.totals = .init(accepted: 2_210, delivered: 2_200, batchesSent: 31, retried: 0, split: 2, deadLettered: 7)
        snapshot.latency = .init(p50: .milliseconds(5), p99: .milliseconds(44))
        let rejected = "HTTP 400: event 'checkout' rejected: properties.total must be a number"
        snapshot.recentBatches = [
            batch(40, ago: 500, events: 100, bytes: 24_300),
            batch(39, ago: 1_500, events: 1, bytes: 243, milliseconds: 3, status: 400, outcome: .deadLettered, error: rejected),
            batch(38, ago: 1_600, events: 2, bytes: 486, milliseconds: 3, status: 400, outcome: .split, error: "HTTP 400 on 2 events: split to find the bad one"),
            batch(37, ago: 1_700, events: 50, bytes: 12_150, milliseconds: 4, status: 400, outcome: .split, error: "HTTP 400 on 50 events: split to find the bad one"),
            batch(36, ago: 1_800, events: 100, bytes: 1_048_700, milliseconds: 9, status: 413, outcome: .split, error: "HTTP 413 Payload Too Large"),
            batch(35, ago: 9_000, events: 100, bytes: 24_300),
            batch(34, ago: 19_000, events: 1, bytes: 243, milliseconds: 2, status: 400, outcome: .deadLettered, error: rejected),
            batch(33, ago: 20_000, events: 100, bytes: 24_300),
        ]
        snapshot.deadLetters = 7
        let preview = #"{"type":"track","event":"checkout","properties":{"total":"12,50 €","currency":"EUR"},"messageId":"0193a"#
        var letters: [DeadLetterSummary] = []
        for index in 0..<7 {
            let even = index % 2 == 0
            let failedAt = Timestamp(millisecondsSince1970: t0 - 1_500 - Int64(index) * 17_500)
            let reason = even ? "properties.total must be a number" : "event too large: 41,204 bytes, the limit is 32,768"
            letters.append(DeadLetterSummary(
                id: Int64(107 - index), destination: "default", name: even ? "checkout" : "Order Completed", reason: reason,
                status: even ? 400 : 413, failedAt: failedAt, preview: preview, messageId: "0193a7c2-\(index)",
                attempts: index == 1 ? 3 : 1))
        }
        snapshot.recentDeadLetters = letters
        return snapshot
    }

    /// The disk filled up: events wait in memory.
    static func storageProblem() -> EngineSnapshot {
        var snapshot = steady()
        snapshot.buffered = 230
        snapshot.storageProblem = StorageProblem(
            kind: .diskFull, message: "database or disk is full", since: .init(millisecondsSince1970: t0 - 12_500),
            bufferedEvents: 230)
        snapshot.noteError("storage: database or disk is full (SQLITE_FULL)", at: .init(millisecondsSince1970: t0 - 12_500))
        return snapshot
    }

    /// Two destinations, one refused our credentials.
    static func twoDestinations() -> EngineSnapshot {
        var snapshot = steady()
        snapshot.destinations = [
            DestinationStatus(name: "primary", endpoint: endpoint, depth: 42, state: .sending,
                              oldestPendingAt: .init(millisecondsSince1970: t0 - 400), lastSuccessAt: .init(millisecondsSince1970: t0 - 100)),
            DestinationStatus(name: "warehouse", endpoint: "https://collector.example.com/v1/batch", depth: 9_120,
                              state: .paused(reason: "HTTP 401: credentials refused"), consecutiveFailures: 1,
                              lastError: "HTTP 401 Unauthorized: check the write key",
                              oldestPendingAt: .init(millisecondsSince1970: t0 - 184_000), lastSuccessAt: nil, stalled: true),
            DestinationStatus(name: "archive", endpoint: "file:///var/lib/beacon/archive.ndjson", depth: 310, state: .pausedByOperator,
                              oldestPendingAt: .init(millisecondsSince1970: t0 - 75_000), lastSuccessAt: .init(millisecondsSince1970: t0 - 75_500)),
        ]
        snapshot.destinations[0].deliveryRate = 118.6
        snapshot.destinations[1].deliveryRate = 0
        snapshot.recentBatches = snapshot.recentBatches.enumerated().map { index, record in
            var record = record
            record.destination = index % 3 == 2 ? "warehouse" : "primary"
            if record.destination == "warehouse" {
                record.status = 401
                record.outcome = .paused
                record.error = "HTTP 401 Unauthorized: check the write key"
            }
            return record
        }
        return snapshot
    }

    /// One destination in each state an operator meets: delivering, idle, backing off
    /// with its next retry, stalled while backing off, paused for its credentials, paused
    /// by the operator; the queue on the edge of an incident.
    static func everyDestinationState() -> EngineSnapshot {
        var snapshot = steady()
        let unavailable = "HTTP 503 Service Unavailable: upstream connect error or disconnect/reset before headers"
        snapshot.destinations = [
            DestinationStatus(name: "main", endpoint: endpoint, depth: 480_000, state: .sending,
                              oldestPendingAt: .init(millisecondsSince1970: t0 - 4_000), lastSuccessAt: .init(millisecondsSince1970: t0 - 20)),
            DestinationStatus(name: "backup", endpoint: "https://backup.example.com/v1/batch", depth: 0, state: .idle,
                              lastSuccessAt: .init(millisecondsSince1970: t0 - 1_200)),
            DestinationStatus(name: "eu", endpoint: "https://eu.example.com/v1/batch", depth: 22_500,
                              state: .backingOff(until: .init(millisecondsSince1970: t0 + 31_000)), consecutiveFailures: 3,
                              lastError: unavailable, oldestPendingAt: .init(millisecondsSince1970: t0 - 45_000),
                              lastSuccessAt: .init(millisecondsSince1970: t0 - 45_500)),
            DestinationStatus(name: "us-west", endpoint: "https://usw.example.com/v1/batch", depth: 51_000,
                              state: .backingOff(until: .init(millisecondsSince1970: t0 + 240_000)), consecutiveFailures: 9,
                              lastError: "HTTP 500 Internal Server Error", oldestPendingAt: .init(millisecondsSince1970: t0 - 600_000),
                              lastSuccessAt: .init(millisecondsSince1970: t0 - 601_000), stalled: true),
            DestinationStatus(name: "warehouse", endpoint: "https://collector.example.com/v1/batch", depth: 9_120,
                              state: .paused(reason: "HTTP 401: credentials refused"), consecutiveFailures: 1,
                              lastError: "HTTP 401 Unauthorized: check the write key",
                              oldestPendingAt: .init(millisecondsSince1970: t0 - 184_000), lastSuccessAt: nil, stalled: true),
            DestinationStatus(name: "archive", endpoint: "file:///var/lib/beacon/archive.ndjson", depth: 310, state: .pausedByOperator,
                              oldestPendingAt: .init(millisecondsSince1970: t0 - 75_000), lastSuccessAt: .init(millisecondsSince1970: t0 - 75_500)),
        ]
        for (index, rate) in [22_104.0, 0, 0, 0, 0, 0].enumerated() { snapshot.destinations[index].deliveryRate = rate }
        snapshot.depth = 480_000
        return snapshot
    }

    /// Steady flow under remote configuration: batch size 50 from the feed, synced 4 s
    /// before t0, polled every 5 s, the blocklist has dropped a few events.
    static func remoteConfig() -> EngineSnapshot {
        var snapshot = steady()
        snapshot.batchSize = 50
        snapshot.remoteConfig = RemoteConfigSummary(
            version: "5f2c0a9e3b7d4411", lastSync: .init(millisecondsSince1970: t0 - 4_000), interval: .seconds(5),
            filtered: EventFilter.Counts(blocked: 12))
        return snapshot
    }

    /// Remote configuration whose last three polls failed: the last good version stays.
    static func remoteConfigFailing() -> EngineSnapshot {
        var snapshot = remoteConfig()
        snapshot.remoteConfig?.lastSync = .init(millisecondsSince1970: t0 - 64_000)
        snapshot.remoteConfig?.lastError = "settings.batchSize: expected an integer of at least 1, found 0"
        snapshot.remoteConfig?.consecutiveFailures = 3
        snapshot.lastError = "remote config: settings.batchSize: expected an integer of at least 1, found 0"
        return snapshot
    }

    /// Demo knobs set as a user would have them during a run.
    static func demoState(_ adjust: (inout DashboardState) -> Void = { _ in }) -> DashboardState {
        var state = DashboardState(mode: .demo)
        state.generatorRate = 100
        adjust(&state)
        return state
    }
}
