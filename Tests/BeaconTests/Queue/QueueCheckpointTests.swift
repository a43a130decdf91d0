@_spi(Testing) import Beacon
import BeaconWire
import Foundation
import Testing

/// The queue copies its write-ahead log into the database off the writer's path (a
/// checkpointer of its own in place of SQLite's automatic one): the log stays bounded
/// and the database file receives the events.
@Suite("Queue checkpoints", .serialized, .timeLimit(.minutes(1)))
struct QueueCheckpointTests {
    @Test("a 30 MB burst leaves a log below the inline bound and the events in the database file")
    func logStaysBounded() async throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a leftover temp dir harms nothing
        let path = directory + "/queue.sqlite"
        let queue = try SQLiteEventQueue(path: path)
        let tracker = Tracker(queue: queue)
        let padding = String(repeating: "p", count: 600)
        var largestLog = 0
        for round in 0..<50 {
            for index in 0..<1_000 { try tracker.track("Burst", properties: ["i": .int(round * 1_000 + index), "p": .string(padding)]) }
            await queue.waitForPendingWrites()
            largestLog = max(largestLog, try size(path + "-wal"))
        }
        #expect(queue.depth.events == 50_000)
        let payload = 50_000 * 600
        // Without checkpoints the log would hold every page written (over 30 MB); SQLite's
        // own bound (4,000 pages here, 16 MB) holds whichever thread copies.
        #expect(largestLog < 17 << 20, "the log reached \(largestLog) bytes")
        let database = try size(path)
        #expect(database > payload / 2, "the database file holds the copied pages: \(database) bytes")
        _ = await queue.close()
    }

    /// Debian's and Ubuntu's SQLite is built with SECURE_DELETE on, which zeroes every
    /// page a dropped segment frees and writes it to the log (and the checkpoint copies it
    /// back): the queue turns that to FAST, so a drop writes a few pages, not the segment.
    @Test("dropping a delivered segment writes a few pages to the log, not the segment's")
    func segmentDropWritesLittle() async throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a leftover temp dir harms nothing
        let path = directory + "/queue.sqlite"
        var configuration = SQLiteEventQueue.Configuration()
        configuration.segmentEvents = 100
        let queue = try SQLiteEventQueue(path: path, configuration: configuration)
        let tracker = Tracker(queue: queue)
        let padding = String(repeating: "p", count: 1_500)
        // Three segments: 1...100, 101...200 and the tail (a group goes whole to the tail,
        // so each fills before the next one starts).
        for count in [100, 100, 1] {
            for index in 0..<count { try tracker.track("Padded", properties: ["i": .int(index), "p": .string(padding)]) }
            await queue.waitForPendingWrites()
        }
        let first = try await queue.peek(for: "d", after: nil, limit: 100, maxBytes: .max)
        #expect(first.map(\.sequence) == Array(1...100))
        // The log starts empty: what it holds afterwards is what the settle and the drop
        // wrote. (A background checkpoint under way would make this one give up.)
        await queue.backgroundCheckpointsFinished()
        try await queue.executeOnWriter("PRAGMA wal_checkpoint(TRUNCATE)")
        try #require(try size(path + "-wal") == 0, "the checkpoint emptied the log")
        let record = BatchRecord(
            id: queue.makeBatchID(), destination: "d", startedAt: .now(), duration: .zero, events: first.count,
            bytes: 0, attempt: 1, status: 200, outcome: .sent, error: nil)
        try await queue.settle(BatchSettlement(record: record, delivered: first.map(\.sequence)))
        #expect(queue.depth.events == 101, "the first segment left")
        // The segment held 100 events of 1.5 KB (about 40 pages); zeroing them writes all.
        let segmentBytes = 100 * padding.utf8.count
        let written = try size(path + "-wal")
        #expect(written > 0, "the settle wrote to the log")
        #expect(written < segmentBytes / 2, "the drop wrote \(written) bytes to the log for a segment of \(segmentBytes)")
        _ = await queue.close()
    }

    /// A fresh directory for a test's store.
    private static func makeDirectory() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("beacon-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    private func size(_ path: String) throws -> Int {
        ((try FileManager.default.attributesOfItem(atPath: path))[.size] as? NSNumber)?.intValue ?? 0
    }
}
