import BeaconCollector
import Foundation
import Logging
import PostgresNIO
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The PostgreSQL the collector's PostgreSQL tests use: `BEACON_TEST_POSTGRES`
/// (`postgres://USER:PASS@HOST:PORT/DB`; `.ci/run` sets it up). Each test gets a fresh
/// schema, dropped at its end, so runs never see each other's rows.
///
/// Locally without the variable the tests are skipped with that reason; under CI (`CI`
/// set) they run and fail when the variable is missing or the server unreachable.
enum PostgresTestDatabase {
    static var address: String? {
        guard let value = ProcessInfo.processInfo.environment["BEACON_TEST_POSTGRES"], !value.isEmpty else { return nil }
        return value
    }

    /// True when the tests must run: an address is given, or this is CI (where a missing one is a failure).
    static var mustRun: Bool {
        address != nil || ProcessInfo.processInfo.environment["CI"].map { !$0.isEmpty } == true
    }

    /// Runs `body` with a store configuration over a fresh schema, then drops the schema.
    static func withSchema<Value: Sendable>(
        poolSize: Int = 4, operationTimeout: Duration = .seconds(5),
        _ body: (PostgresStoreConfiguration) async throws -> Value
    ) async throws -> Value {
        guard let address else {
            Issue.record("BEACON_TEST_POSTGRES is not set, and CI requires the PostgreSQL tests: run .ci/run or set it.")
            throw MissingDatabase()
        }
        var configuration = try PostgresStoreConfiguration(url: address, poolSize: poolSize)
        configuration.schema = "beacon_test_" + String(UInt64.random(in: 1...UInt64.max), radix: 36)
        configuration.operationTimeout = operationTimeout
        defer {
            // Best effort: a schema left behind by a killed run only costs disk in the test database.
            if let schema = configuration.schema { psql(address, "DROP SCHEMA IF EXISTS \(schema) CASCADE") }
        }
        return try await body(configuration)
    }

    /// Runs one SQL statement with `psql` (the tests' side door into the database); returns its output.
    @discardableResult
    static func psql(_ address: String, _ sql: String) -> (status: Int32, output: String) {
        run(["psql", address, "-v", "ON_ERROR_STOP=1", "-tAc", sql])
    }

    /// Runs a command that leaves no process behind and waits for it; its status and standard output.
    @discardableResult
    static func run(_ arguments: [String]) -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return (-1, "\(error)")
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Runs `arguments` (through `/usr/bin/env`, so a bare name is looked up in `PATH`)
    /// with its output discarded and waits for it; its exit status, or -1 when it could not
    /// start or was killed by a signal.
    ///
    /// Spawned with no descriptor above 2: a server that `pg_ctl start` leaves running
    /// would otherwise inherit the test process's descriptors (and refuse to start when
    /// they are many), and a pipe it inherited would never reach its end.
    @discardableResult
    static func spawnAndWait(_ arguments: [String]) -> Int32 {
        let arguments = ["/usr/bin/env"] + arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // No closefrom action in Swift's Glibc: mark every open descriptor close-on-exec instead
        // (harmless in a test process: children get what they need through dup2).
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            if let fd = Int32(name), fd > 2 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid = pid_t()
        guard posix_spawn(&pid, "/usr/bin/env", &actions, nil, &argv, environ) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { return -1 }
        }
        // Exited normally: the code is in bits 8...15; killed by a signal: a failure.
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : -1
    }

    struct MissingDatabase: Error {}
}
