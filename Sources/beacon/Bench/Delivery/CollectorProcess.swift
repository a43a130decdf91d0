import BeaconWire
import Foundation

/// A collector as users run it: `beacon collector --db FILE --port 0`, a process of its
/// own storing to a SQLite file on disk (WAL), on 127.0.0.1 and the port it prints.
final class CollectorProcess: @unchecked Sendable {
    // @unchecked: immutable after `init`; the child is used by one task at a time.
    let port: Int
    let databasePath: String
    private let child: BenchChild

    /// What the benchmarks say the collector is.
    static let description = "a separate `beacon collector --db FILE` process (SQLite on disk, WAL, synchronous=NORMAL) on 127.0.0.1"

    /// Starts `executable collector` storing to a new file at `databasePath`.
    init(executable: String = BenchChild.currentExecutable, databasePath: String) throws {
        EnqueueBenchmark.remove(databasePath)
        child = try BenchChild(
            executable: executable,
            arguments: ["collector", "--host", "127.0.0.1", "--port", "0", "--db", databasePath, "--log-level", "error"],
            passStderr: true)
        self.databasePath = databasePath
        guard let line = child.readLine(timeout: .seconds(30)) else {
            child.stop()
            throw CLIError.runtime("bench: the collector (\(child.command)) did not say where it listens")
        }
        guard let port = Self.port(fromListeningLine: line) else {
            child.stop()
            throw CLIError.runtime("bench: the collector printed \(line.debugDescription), not `listening on http://127.0.0.1:PORT`")
        }
        self.port = port
    }

    deinit {
        child.stop()
        EnqueueBenchmark.remove(databasePath)
    }

    /// The port in `listening on http://HOST:PORT`, if the line is that and the port is valid.
    static func port(fromListeningLine line: String) -> Int? {
        let prefix = "listening on http://"
        guard line.hasPrefix(prefix), let colon = line.lastIndex(of: ":"), let port = Int(line[line.index(after: colon)...]),
            (1...65_535).contains(port)
        else { return nil }
        return port
    }

    /// The collector's CPU time so far, in seconds. Throws where `/proc` cannot tell (the
    /// process gone): a figure built on an unknown is not reported.
    var cpuSeconds: Double {
        get throws(CLIError) {
            guard let seconds = child.cpuSeconds else {
                throw .runtime("bench: cannot read the collector's CPU time (/proc/\(child.pid)/stat); is it still running?")
            }
            return seconds
        }
    }

    /// Events stored, from `GET /v1/stats` (on a connection of its own).
    func storedCount() throws -> Int {
        let connection = try RawHTTPConnection(port: port)
        let response = try connection.get("/v1/stats")
        // A body that does not decode is reported below, with the status, as a missing count.
        guard response.status == 200, let stats = try? JSONDecoder().decode(JSONValue.self, from: Data(response.body)),
            let stored = stats["stored"]?.intValue
        else {
            throw CLIError.runtime("bench: the collector's /v1/stats answered \(response.status) without a `stored` count")
        }
        return stored
    }

    /// Stops the collector (SIGTERM, a graceful shutdown).
    func stop() {
        child.stop()
    }
}
