import Beacon
import BeaconWire

/// The batches `beacon bench ingest` and `beacon bench agent` post: `events` distinct
/// events (the properties of the other benchmarks, about 330 bytes each) cut into batches
/// of `batchSize`, each encoded and gzipped (or not, at level 0) once, before anything is
/// timed. Every run posts the same bodies to a fresh store, and the baseline inserts the
/// rows of the same bodies.
struct IngestWorkload: Sendable {
    /// The batches, each with its gzipped body prepared.
    let batches: [OutgoingBatch]
    /// The same bodies uncompressed (what the collector parses, and the baseline's rows).
    let plainBodies: [[UInt8]]
    /// Events in all batches.
    let events: Int
    /// Bytes posted in all batches (gzipped, or plain at level 0).
    let wireBytes: Int
    /// The events' own JSON in all batches, without the bodies' `{"batch":[…],"sentAt":…}`
    /// around them: what a store keeps of each event.
    let eventBytes: Int

    /// - Parameter gzipLevel: 1 (fastest) to 9 (smallest); 0 posts the bodies plain.
    init(events: Int, batchSize: Int, gzipLevel: Int) throws {
        let sentAt = Timestamp.now()
        var batches: [OutgoingBatch] = []
        var plainBodies: [[UInt8]] = []
        var wireBytes = 0
        var eventBytes = 0
        for (number, range) in Self.batchRanges(events: events, batchSize: batchSize).enumerated() {
            let queued = range.map { index in
                let event = Event(
                    name: "Benchmark Event", properties: EnqueueBenchmark.properties, anonymousId: "bench-\(index % 1000)")
                return QueuedEvent(sequence: Int64(index), messageId: event.messageId, name: "Benchmark Event", payload: event.jsonBytes)
            }
            var batch = OutgoingBatch(id: Int64(number), events: queued, attempt: 1)
            let plain = batch.body(sentAt: sentAt)
            let body = gzipLevel == 0
                ? PreparedBody(bytes: plain, gzipped: false) : PreparedBody(bytes: try Gzip.compress(plain, level: gzipLevel), gzipped: true)
            batch.preparedBody = body
            wireBytes += body.bytes.count
            eventBytes += queued.reduce(0) { $0 + $1.payloadCount }
            batches.append(batch)
            plainBodies.append(plain)
        }
        self.batches = batches
        self.plainBodies = plainBodies
        self.events = events
        self.wireBytes = wireBytes
        self.eventBytes = eventBytes
    }

    /// `0..<events` cut into consecutive ranges of `batchSize` (the last may be shorter).
    static func batchRanges(events: Int, batchSize: Int) -> [Range<Int>] {
        guard events > 0, batchSize > 0 else { return [] }
        return stride(from: 0, to: events, by: batchSize).map { $0..<min($0 + batchSize, events) }
    }

    /// Which collector client `client` posts to when `clients` share `collectors`: in turn.
    static func collector(forClient client: Int, collectors: Int) -> Int {
        collectors > 0 ? client % collectors : 0
    }
}
