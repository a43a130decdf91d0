@_spi(Testing) import Beacon
import BeaconWire
import Foundation
import Testing

/// The queue copies its write-ahead log into the database off the writer's path (a
/// checkpointer of its own in place of SQLite's automatic one): the log stays bounded
/// and the database file receives the events.
@Suite("Queue checkpoints", .timeLimit(.minutes(1)))
struct QueueCheckpointTests {
    @Test("a 30 MB burst leaves a log below the inline bound and the events in the database file")
    func logStaysBounded() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("beacon-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
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

    private func size(_ path: String) throws -> Int {
        ((try FileManager.default.attributesOfItem(atPath: path))[.size] as? NSNumber)?.intValue ?? 0
    }
}
