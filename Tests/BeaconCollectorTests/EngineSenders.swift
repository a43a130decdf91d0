import Beacon
import Foundation
import Logging
import Synchronization

/// One send an engine made: when, what it carried, what came back.
struct SendAttempt: Sendable {
    var start: ContinuousClock.Instant
    var end: ContinuousClock.Instant
    var status: Int?
    var messageIds: [String]
}

/// Sends through `primary` and remembers every attempt, so a test can tell which batches
/// were answered 200 and how far apart the retries were.
final class AttemptRecorder: EventSender {
    private let primary: any EventSender
    private let log = Mutex<[SendAttempt]>([])

    init(_ primary: any EventSender) { self.primary = primary }

    var endpointDescription: String { primary.endpointDescription }

    /// Every attempt so far, in the order they ended.
    var attempts: [SendAttempt] { log.withLock { $0 } }

    func prepare(_ batch: OutgoingBatch) -> OutgoingBatch { primary.prepare(batch) }

    func send(_ batch: OutgoingBatch) async -> SendResult {
        let start = ContinuousClock.now
        let result = await primary.send(batch)
        let attempt = SendAttempt(start: start, end: .now, status: result.status, messageIds: batch.events.map(\.messageId))
        log.withLock { $0.append(attempt) }
        return result
    }
}

/// Sends each batch to `primary`; every `every`-th batch (by id) also goes to `replay`, at
/// the same moment and with the same gzipped body: a retry that reached another collector.
/// The replay's answer is ignored; the primary's decides.
final class ReplayingSender: EventSender {
    private let primary: any EventSender
    private let replay: any EventSender
    private let every: Int64
    private let replayedEvents = Mutex(0)

    init(primary: any EventSender, replay: any EventSender, every: Int64) {
        self.primary = primary
        self.replay = replay
        self.every = every
    }

    var endpointDescription: String { primary.endpointDescription }

    /// Events sent a second time, to the other collector.
    var replayed: Int { replayedEvents.withLock { $0 } }

    func prepare(_ batch: OutgoingBatch) -> OutgoingBatch { primary.prepare(batch) }

    func send(_ batch: OutgoingBatch) async -> SendResult {
        let batch = batch.preparedBody == nil ? primary.prepare(batch) : batch
        guard batch.id % every == 0 else { return await primary.send(batch) }
        async let replayed = replay.send(batch)
        let result = await primary.send(batch)
        if await replayed.status == 200 { replayedEvents.withLock { $0 += batch.events.count } }
        return result
    }
}

/// An engine over a fresh SQLite queue in `directory`, sending batches of 500 through
/// `sender` and retrying fast (20 ms, at most 200 ms, or what `Retry-After` says).
func makeEngine(directory: String, sender: any EventSender) throws -> BeaconEngine<ContinuousClock> {
    var logger = Logger(label: "beacon.acceptance")
    logger.logLevel = ProcessInfo.processInfo.environment["BEACON_TEST_LOG"] == nil ? .critical : .debug
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let queue = try SQLiteEventQueue(path: "\(directory)/queue.sqlite", logger: logger)
    return BeaconEngine(
        queue: queue, destination: Destination(sender: sender),
        settings: EngineSettings(policy: .any([.count(500), .interval(.milliseconds(50))]), batchSize: 500),
        retryPolicy: RetryPolicy(initialDelay: .milliseconds(20), maxDelay: .milliseconds(200)), logger: logger)
}

/// An HTTP sender to a collector on 127.0.0.1.
func httpSender(port: Int) throws -> HTTPSender {
    var logger = Logger(label: "beacon.acceptance")
    logger.logLevel = .critical
    return HTTPSender(
        configuration: try HTTPSenderConfiguration(endpoint: "http://127.0.0.1:\(port)", writeKey: nil, requestTimeout: .seconds(20)),
        logger: logger)
}
