import Foundation
import Testing

/// `--policy` with an interval that is not whole milliseconds (issue 22, F12): exit 2,
/// one line naming the value, before anything starts.
@Suite("--policy: whole milliseconds", .timeLimit(.minutes(1)))
struct PolicyFlagTests {
    @Test(arguments: ["every 0.5ms", "count 10 or every 2.5ms", "every nans", "every -1s", "every 1e300s"])
    func agentRefusesThePolicy(text: String) async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try await BeaconProcess.run(
            ["agent", "--db", directory + "/q.sqlite", "--endpoint", "http://127.0.0.1:9", "--listen", "127.0.0.1:0", "--policy", text],
            stdinBytes: nil, limit: .seconds(20))
        #expect(result.status == 2, "\(text): exit \(result.status), \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("--policy") && result.stderr.contains(text), "names the flag and the value: \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/q.sqlite"), "nothing started")
    }
}
