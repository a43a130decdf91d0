import Beacon
@_spi(Benchmarks) import BeaconCollector
import BeaconTesting
import Foundation
import GRDB
import Testing

/// The collector's steps replayed in-process (what `beacon bench` reports per batch), and
/// the two checkpoint policies: both store every batch, in WAL mode with
/// `synchronous=NORMAL`, and both checkpoint once the log passes its threshold.
@Suite("collector stage profile and checkpoints")
struct CollectorStageProfileTests {
    /// `count` gzipped batch bodies of `size` track events with distinct ids.
    private func bodies(count: Int, size: Int) throws -> [[UInt8]] {
        try (0..<count).map { batch in
            let events = (0..<size).map { index in
                #"{"type":"track","event":"Profiled","messageId":"m-\#(batch)-\#(index)","anonymousId":"a","#
                    + #""timestamp":"2026-11-25T10:00:00.000Z","properties":{"n":\#(index),"page":"/pricing/compare"}}"#
            }
            let json = #"{"batch":[\#(events.joined(separator: ","))]}"#
            return try Gzip.compress(Array(json.utf8), level: 6)
        }
    }

    private func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("beacon-profile-\(UUID().uuidString).sqlite").path
    }

    private func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }  // best effort: temp files
    }

    private func storedRows(_ path: String) throws -> Int {
        let queue = try StoreFile.open(path)
        return try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM collector_events") ?? -1 }
    }

    @Test(
        "every batch is stored and timed step by step, and a checkpoint runs past the threshold",
        arguments: [CollectorCheckpointPolicy.onCommit(pages: 32), .background(pages: 32)])
    func profile(policy: CollectorCheckpointPolicy) async throws {
        let path = temporaryPath()
        defer { remove(path) }
        let result = try await CollectorStageProfile.run(
            bodies: try bodies(count: 60, size: 100), gzipped: true, databasePath: path, checkpoints: policy)
        #expect(result.stored == 6_000)
        for steps in [result.inflate, result.utf8, result.parse, result.validate, result.insert, result.commit, result.total] {
            #expect(steps.count == 60)
        }
        #expect(result.total.allSatisfy { $0 > .zero })
        #expect(!result.checkpoints.isEmpty, "60 batches of 100 events fill far more than 32 pages of log")
        #expect(result.checkpoints.allSatisfy { $0 > .zero })
        switch policy {
        case .onCommit:
            #expect(result.checkpointsInCommit == result.checkpoints.count)
            #expect(result.pagesCopiedInBackground == 0)
        case .background:
            // The log is copied off the request path (a checkpoint from a connection that had
            // not read the database would report success having copied nothing), and most
            // checkpoints ran there, even with commits back to back as here: a commit
            // copies what is left only when the log ran 4 × 32 pages ahead.
            #expect(result.pagesCopiedInBackground > 32)
            #expect(result.checkpointsInCommit * 2 < result.checkpoints.count)
        }
        #expect(result.synchronous == 1, "NORMAL: a commit is in the log before the answer, the log synced at checkpoints")
        #expect(result.journalMode == "wal")
        #expect(try storedRows(path) == 6_000)
    }

    @Test("a body the collector would refuse stops the profile with a message")
    func refusedBody() async throws {
        let path = temporaryPath()
        defer { remove(path) }
        let body = try Gzip.compress(Array(#"{"batch":[{"type":"track"}]}"#.utf8), level: 6)
        await #expect(throws: (any Error).self) {
            _ = try await CollectorStageProfile.run(bodies: [body], gzipped: true, databasePath: path)
        }
    }

    @Test("a collector over a file answers 200 with each batch committed, its log checkpointed in the background")
    func collectorOnDisk() async throws {
        let path = temporaryPath()
        defer { remove(path) }
        let bodies = try bodies(count: 60, size: 100)
        try await withCollector(CollectorConfiguration(databasePath: path)) { _, port in
            try await withClient(port: port) { client in
                for body in bodies {
                    let answer = try await call(client, .post, "/v1/batch", body: body, headers: [.contentEncoding: "gzip"])
                    #expect(answer.status == 200)
                }
            }
            // Each 200 came after its commit: another connection reads every row now.
            #expect(try storedRows(path) == 6_000)
        }
    }
}
