import BeaconTesting
import Foundation
import GRDB
import Testing

/// `beacon track --print-ids` killed with SIGKILL at a random moment: every id it printed
/// must be in the store exactly once, in the printed order.
@Suite("Crash durability", .timeLimit(.minutes(3)))
struct CrashDurabilityTests {
    @Test func everyPrintedIdSurvivesKill9() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        var totalPrinted = 0
        for round in 0..<20 {
            let db = "\(directory)/round-\(round).sqlite"
            // Read until a random number of ids has been printed, then kill mid-stream.
            let target = Int.random(in: 1...4000)
            let (printed, reason) = try await offThePool { try Self.trackAndKill(db: db, afterIds: target) }
            #expect(reason == .uncaughtSignal, "round \(round): the child was killed, not finished")

            // A partial last line may be cut by the kill: only whole lines count as printed.
            var text = String(decoding: printed, as: UTF8.self)
            if !text.hasSuffix("\n"), let cut = text.lastIndex(of: "\n") { text = String(text[...cut]) }
            let ids = text.split(separator: "\n").map(String.init).filter { $0.count == 36 }
            #expect(ids.count >= 1, "round \(round): the child printed ids before the kill")
            totalPrinted += ids.count

            let stored = try await StoreFile.open(db).read { db in
                try String.fetchAll(db, sql: "SELECT message_id FROM events ORDER BY seq")
            }
            let positions = Dictionary(stored.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })
            #expect(stored.count == Set(stored).count, "round \(round): no id stored twice")
            let missing = ids.filter { positions[$0] == nil }
            #expect(missing.isEmpty, "round \(round): \(missing.count) printed ids missing after kill -9")
            let order = ids.compactMap { positions[$0] }
            #expect(order == order.sorted(), "round \(round): stored in printed order")
            #expect(Array(stored.prefix(ids.count)) == ids, "round \(round): printed ids are the head of the queue")
        }
        #expect(totalPrinted >= 20)
    }

    /// Runs `beacon track --print-ids` into `db` and kills it with SIGKILL once about
    /// `afterIds` ids were printed; returns what it printed and how it ended. Blocking:
    /// run it off the cooperative pool.
    static func trackAndKill(db: String, afterIds target: Int) throws -> (Data, Process.TerminationReason) {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: BeaconProcess.path)
        process.arguments = ["track", "--db", db, "--count", "1000000", "--print-ids", "--name", "Crash Test"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var printed = Data()
        let reader = out.fileHandleForReading
        while printed.count / 37 < target {
            let chunk = PipeReader.chunk(reader)
            if chunk.isEmpty { break }
            printed.append(chunk)
        }
        kill(process.processIdentifier, SIGKILL)
        printed.append(PipeReader.all(reader))  // whatever was flushed before the kill
        process.waitUntilExit()
        return (printed, process.terminationReason)
    }
}
