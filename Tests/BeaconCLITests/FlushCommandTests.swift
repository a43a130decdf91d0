import BeaconTesting
import Foundation
import GRDB
import Testing

/// `beacon flush` against a real collector process on 127.0.0.1.
@Suite("beacon flush", .timeLimit(.minutes(3)))
struct FlushCommandTests {
    @Test func aSuccessfulFlushCountsEveryBatchAndLogsNothing() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        let collector = try RunningCollector(arguments: [], directory: directory)
        defer { collector.stop() }
        let endpoint = try await collector.address()
        for round in 0..<6 {
            let db = "\(directory)/q\(round).sqlite"
            let track = try await BeaconProcess.run(["track", "--db", db, "--count", "200"])
            #expect(track.status == 0, "\(track.stderr)")
            let flush = try await BeaconProcess.run(["flush", "--db", db, "--endpoint", endpoint, "--batch-size", "50"])
            #expect(flush.status == 0, "round \(round): \(flush.stderr)")
            #expect(flush.stdout == "flushed 200 events to \(endpoint) in 4 batches; queue empty\n", "round \(round)")
            #expect(flush.stderr.isEmpty, "round \(round): a flush that worked logged: \(flush.stderr)")
        }
    }

    @Test func anEmptyStoreFlushesAtOnceAndLogsNothing() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        for round in 0..<3 {
            let db = "\(directory)/empty\(round).sqlite"
            let flush = try await BeaconProcess.run(["flush", "--db", db, "--endpoint", "log:"])
            #expect(flush.status == 0, "round \(round): \(flush.stderr)")
            #expect(flush.stdout == "flushed 0 events to log in 0 batches; queue empty\n", "round \(round)")
            #expect(flush.stderr.isEmpty, "round \(round): an empty flush logged: \(flush.stderr)")
        }
    }

    @Test func eventsRefusedForGoodAreCountedApartFromTheDelivered() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        let collector = try RunningCollector(arguments: ["--max-event-bytes", "300"], directory: directory)
        defer { collector.stop() }
        let endpoint = try await collector.address()
        let db = "\(directory)/q.sqlite"
        // Two ids that differ only in Unicode form; the collector refuses the second alone, for its size.
        let pad = String(repeating: "x", count: 600)
        let lines = #"{"event":"small","messageId":"id-\u00e9","userId":"u"}"# + "\n"
            + #"{"event":"big","messageId":"id-e\u0301","userId":"u","properties":{"pad":"\#(pad)"}}"# + "\n"
            + #"{"event":"other","userId":"u"}"# + "\n"
        let track = try await BeaconProcess.run(["track", "--db", db, "--stdin"], stdin: lines)
        #expect(track.status == 0, "\(track.stderr)")
        let flush = try await BeaconProcess.run(["flush", "--db", db, "--endpoint", endpoint])
        #expect(flush.status == 0, "\(flush.stderr)")
        #expect(flush.stdout == "flushed 3 events to \(endpoint) in 1 batch: 2 delivered, 1 dead-lettered (beacon dead list --db \(db)); queue empty\n")
        let dead = try await BeaconProcess.run(["dead", "list", "--db", db])
        #expect(dead.stdout.contains("event_too_large"), "\(dead.stdout)")
        #expect(dead.stdout.contains("1 dead letter"), "\(dead.stdout)")
    }

    @Test func aCorruptStoreIsReportedWithItsCause() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        let db = "\(directory)/q.sqlite"
        let blob = String(repeating: "x", count: 2000)
        let track = try await BeaconProcess.run(["track", "--db", db, "--count", "2000", "--prop", "blob=\(blob)"])
        #expect(track.status == 0, "\(track.stderr)")
        // The queue copies its log into the file on a thread of its own, which a process
        // that exits at once may not have let run: copy it all now, so the pages are there.
        _ = try await StoreFile.open(db).writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        // Overwrite the middle of the file: the header stays, the tables' pages do not.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: db))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 2)
        handle.write(Data(repeating: 0xDE, count: 64 * 1024))
        try handle.close()

        let flush = try await BeaconProcess.run(["flush", "--db", db, "--endpoint", "log:", "--timeout", "3"])
        #expect(flush.status == 1 || flush.status == 2, "\(flush.stderr)")
        let last = flush.stderr.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.contains("malformed") || last.contains("not a usable Beacon store"), "the cause, not only a time-out: \(flush.stderr)")
    }

    @Test(arguments: [("TERM", SIGTERM, Int32(143)), ("INT", SIGINT, Int32(130))])
    func aSignalStopsAfterTheBatchInFlightSettles(name: String, signal: Int32, code: Int32) async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        let db = "\(directory)/q.sqlite"
        // Each batch takes 1 s at the collector, so a signal lands while one is in flight even
        // when a loaded machine takes a while to spawn the stats poller below.
        let collector = try RunningCollector(arguments: ["--latency-ms", "1000"], directory: directory)
        defer { collector.stop() }
        let endpoint = try await collector.address()
        let track = try await BeaconProcess.run(["track", "--db", db, "--count", "100"])
        #expect(track.status == 0, "\(track.stderr)")

        let flush = ChildProcess()
        flush.executableURL = URL(fileURLWithPath: BeaconProcess.path)
        flush.arguments = ["flush", "--db", db, "--endpoint", endpoint, "--batch-size", "10"]
        let err = Pipe()
        flush.standardError = err
        flush.standardOutput = FileHandle.nullDevice
        try flush.run()
        defer { if flush.isRunning { kill(flush.processIdentifier, SIGKILL) } }
        // Once the collector has a batch, the flush is running with its handlers in place.
        let deadline = ContinuousClock.now + .seconds(30)
        while try await collector.stats()["received"] as? Int ?? 0 < 10, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let received = try await collector.stats()["received"] as? Int ?? 0
        try #require(received >= 10, "the flush sent \(received) batches in 30 s; the signal would have met no flush in progress")
        kill(flush.processIdentifier, signal)
        let stderr = try await offThePool { String(decoding: PipeReader.all(err.fileHandleForReading), as: UTF8.self) }
        try await offThePool { flush.waitUntilExit() }

        #expect(flush.terminationReason == .exit, "killed by the signal instead of stopping: \(stderr)")
        #expect(flush.terminationStatus == code, "\(stderr)")
        let lines = stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(stderr)")
        let status = try await BeaconProcess.run(["status", "--db", db, "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        let depth = try #require(json["depth"] as? Int)
        #expect(depth > 0 && depth < 100, "stopped early: \(depth)")
        #expect(stderr.contains("SIG\(name)") && stderr.contains("\(depth) events stay queued in \(db)"), "\(stderr)")
        // What was acknowledged left the store; what stayed was never stored twice.
        let stored = try await collector.stats()["stored"] as? Int ?? -1
        #expect(stored + depth == 100, "stored \(stored), queued \(depth)")

        let rest = try await BeaconProcess.run(["flush", "--db", db, "--endpoint", endpoint, "--batch-size", "100"])
        #expect(rest.status == 0, "\(rest.stderr)")
        let after = try await collector.stats()
        #expect(after["stored"] as? Int == 100)
        #expect(after["duplicates"] as? Int == 0, "the batch in flight was sent again: \(after)")
    }
}

extension RunningCollector {
    /// `GET /v1/stats` as JSON.
    func stats() async throws -> [String: Any] {
        let base = try await address()
        let result = try await BeaconProcess.run(
            ["-s", "--max-time", "10", base + "/v1/stats"], stdinBytes: nil, executable: "/usr/bin/curl", limit: .seconds(15))
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }
}
