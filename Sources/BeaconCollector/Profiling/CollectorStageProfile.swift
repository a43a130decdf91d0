import BeaconWire
import GRDB
import GRDBSQLite

/// Where a collector's time per batch goes, measured in this process: request bodies go
/// through the collector's own steps one after another (inflate, UTF-8 check, parse,
/// validate, insert the rows, commit) into a fresh SQLite store on disk, each step timed.
/// `beacon bench` replays the very bodies an engine sent; what a round trip takes beyond
/// these steps is HTTP, the response and the hand-offs between threads and processes.
@_spi(Benchmarks) public enum CollectorStageProfile {
    /// Per-batch durations of each step, in the order the bodies came.
    public struct Result: Sendable {
        public var inflate: [Duration] = []
        public var utf8: [Duration] = []
        public var parse: [Duration] = []
        public var validate: [Duration] = []
        /// Binding and stepping the rows, inside the transaction.
        public var insert: [Duration] = []
        /// The `COMMIT`, including a checkpoint when SQLite runs one then.
        public var commit: [Duration] = []
        /// Each checkpoint, wherever it ran (in a commit, or in the background).
        public var checkpoints: [Duration] = []
        /// How many of them a commit ran, before its request could be answered.
        public var checkpointsInCommit = 0
        /// Log pages copied into the database by checkpoints in the background.
        public var pagesCopiedInBackground = 0
        /// The whole of each batch's handling, first step to commit.
        public var total: [Duration] = []
        /// Events stored.
        public var stored = 0
        /// The writer's `PRAGMA synchronous` (1 NORMAL, 2 FULL) and journal mode.
        public var synchronous = 0
        public var journalMode = ""
    }

    /// Runs `bodies` (gzip when `gzipped`) through the collector's steps into a new store
    /// at `databasePath`, checkpointing as `checkpoints` says.
    public static func run(
        bodies: [[UInt8]], gzipped: Bool, databasePath: String, checkpoints: CollectorCheckpointPolicy = .default
    ) async throws -> Result {
        let timing = StoreTiming()
        let store = try EventStore(path: databasePath, checkpoints: checkpoints, timing: timing)
        let limits = CollectorLimits()
        var result = Result()
        for body in bodies {
            let start = ContinuousClock.now
            var json = body
            if gzipped {
                do {
                    json = try BodyReader.inflateGzip(body, limit: limits.maxRequestBytes)  // the ingest's own way
                } catch {
                    throw CollectorSetupError(message: "a replayed body is not a whole gzip stream: \(error)")
                }
            }
            let inflated = ContinuousClock.now
            guard json.withUnsafeBufferPointer(UTF8Validator.isValid) else {
                throw CollectorSetupError(message: "a replayed body is not UTF-8")
            }
            let checked = ContinuousClock.now
            let parsed = try BatchParser.parseBatch(json, keepingAtMost: limits.maxEventsPerBatch)
            let parsedAt = ContinuousClock.now
            guard case .accept(let types, let times) = BatchAdmission.decide(parsed, defaultType: .track, maxEventBytes: limits.maxEventBytes) else {
                throw CollectorSetupError(message: "the collector would refuse a replayed batch")
            }
            let validated = ContinuousClock.now
            let batch = AcceptedBatch(parsed: parsed, types: types, times: times, receivedAtMilliseconds: Timestamp.now().millisecondsSince1970)
            result.stored += try await store.insert(batch).stored
            let end = ContinuousClock.now
            result.inflate.append(inflated - start)
            result.utf8.append(checked - inflated)
            result.parse.append(parsedAt - checked)
            result.validate.append(validated - parsedAt)
            result.total.append(end - start)
        }
        await store.finishCheckpoints()
        result.insert = timing.insert
        result.commit = timing.commit
        result.checkpoints = timing.checkpoint
        result.checkpointsInCommit = timing.checkpointsInCommit
        result.pagesCopiedInBackground = timing.pagesCopiedInBackground
        // The writer's own settings (DatabasePool sets them on each connection).
        (result.synchronous, result.journalMode) = try await store.writer.writeWithoutTransaction { db in
            (try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1, try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "")
        }
        return result
    }
}
