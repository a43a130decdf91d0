import BeaconCollector
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL server of one test's own, which the test may stop and start: `initdb` into
/// a temporary directory, on a free port, its socket in that directory. Tests must never
/// stop the shared cluster on 5432, since other suites use it at the same time.
///
/// The server refuses to run as root, so as root (CI) its programs run as the `postgres`
/// user through `setpriv`. Elsewhere (neither root nor `postgres`) the tests that need it
/// are skipped, except under CI, where they fail.
final class PrivatePostgres: Sendable {
    /// The binaries of the PostgreSQL the tests use.
    static let binaries = ProcessInfo.processInfo.environment["BEACON_TEST_POSTGRES_BIN"] ?? "/usr/lib/postgresql/15/bin"

    /// Whether this process can run a private server: as root or as `postgres`, with the binaries installed.
    static var isPossible: Bool {
        (getuid() == 0 || runsAsPostgres) && FileManager.default.isExecutableFile(atPath: binaries + "/initdb")
    }

    /// Whether the tests that need one run: when possible, and always under CI (where "impossible" is a failure).
    static var mustRun: Bool {
        isPossible || ProcessInfo.processInfo.environment["CI"].map { !$0.isEmpty } == true
    }

    private static var runsAsPostgres: Bool {
        guard let entry = getpwuid(getuid()), let name = entry.pointee.pw_name else { return false }
        return String(cString: name) == "postgres"
    }

    let directory: String
    let port: Int

    /// The store address: the superuser `beacon`, trusted on 127.0.0.1, database `postgres`.
    var address: String { "postgres://beacon@127.0.0.1:\(port)/postgres" }

    /// Creates the cluster and starts the server (a few seconds), on a thread of its own:
    /// the cooperative pool is as wide as the core count, and other tests need it meanwhile.
    static func make() async throws -> PrivatePostgres {
        try await offThePool { try PrivatePostgres() }
    }

    /// Starts the server again, off the cooperative pool.
    func started() async throws {
        try await offThePool { try self.start() }
    }

    /// Stops the server, off the cooperative pool.
    func stopped(mode: String = "fast") async throws {
        try await offThePool { try self.stop(mode: mode) }
    }

    /// Creates the cluster and starts the server (a few seconds; blocking).
    init() throws {
        guard Self.isPossible else {
            throw PrivatePostgresError("cannot run a private PostgreSQL: run the tests as root or postgres, with \(Self.binaries)/initdb installed")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("beacon-pg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if getuid() == 0 {
            guard let entry = getpwnam("postgres"), chown(directory, entry.pointee.pw_uid, entry.pointee.pw_gid) == 0 else {
                throw PrivatePostgresError("cannot give \(directory) to the postgres user")
            }
        }
        port = try Self.freePort()
        let created = Self.asPostgres([
            Self.binaries + "/initdb", "-D", directory + "/data", "-U", "beacon", "--auth=trust", "--no-sync", "-E", "UTF8",
        ])
        guard created == 0 else { throw PrivatePostgresError("initdb failed (exit \(created))") }
        try start()
    }

    /// Starts the server and waits until it accepts connections.
    func start() throws {
        let options = "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1"
        let started = Self.asPostgres([
            Self.binaries + "/pg_ctl", "-D", directory + "/data", "-l", directory + "/log", "-o", options, "-w", "-t", "60", "start",
        ])
        guard started == 0 else { throw PrivatePostgresError("pg_ctl start failed (exit \(started)); see \(directory)/log") }
    }

    /// Stops the server (`fast`: clients are disconnected, the server shuts down cleanly;
    /// `immediate`: as after a crash).
    func stop(mode: String = "fast") throws {
        let stopped = Self.asPostgres([Self.binaries + "/pg_ctl", "-D", directory + "/data", "-m", mode, "-w", "stop"])
        guard stopped == 0 else { throw PrivatePostgresError("pg_ctl stop failed (exit \(stopped))") }
    }

    /// Stops the server if it runs and removes its directory.
    func destroy() {
        // Best effort: it may be stopped already, and a directory left in /tmp costs only disk.
        Self.asPostgres([Self.binaries + "/pg_ctl", "-D", directory + "/data", "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs one of the server's programs as the `postgres` user when this process is root.
    @discardableResult
    private static func asPostgres(_ arguments: [String]) -> Int32 {
        let prefix = getuid() == 0 ? ["setpriv", "--reuid=postgres", "--regid=postgres", "--clear-groups", "--"] : []
        return PostgresTestDatabase.spawnAndWait(prefix + arguments)
    }

    /// A port nothing listens on now (the kernel's pick for a socket bound to port 0).
    private static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw PrivatePostgresError("socket failed: errno \(errno)") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(socket, generic, length) == 0 && getsockname(socket, generic, &length) == 0
            }
        }
        guard bound else { throw PrivatePostgresError("cannot find a free port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// A private server could not be set up.
struct PrivatePostgresError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Runs blocking work on a thread of its own rather than on Swift's cooperative pool.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}
