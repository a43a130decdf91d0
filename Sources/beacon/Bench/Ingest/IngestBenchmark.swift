import BeaconCollector
import Foundation
import Logging

/// One setting of `beacon bench ingest`: `clients` clients posting a workload's gzip
/// batches to `collectors` `beacon collector` processes, against the database's own insert
/// of the same rows, run after run, each on a fresh store.
struct IngestBenchmark {
    var directory: String
    /// The PostgreSQL the collectors share, or `nil` for one collector over a SQLite file.
    var postgres: PostgresStoreConfiguration?
    var collectors: Int
    var clients: Int
    var logger: Logger

    /// Runs the collector side, then the baseline, of run number `run`.
    func run(_ workload: IngestWorkload, baseline: StoreBaseline, run: Int) async throws -> PostingRun {
        let name = "c\(collectors)_n\(clients)_r\(run)"
        let outcome = try await collectorSide(workload, name: name)
        let baselineTime: Duration
        if let postgres {
            let configuration = Self.withSchema(postgres, "beacon_bench_\(getpid())_\(name)_base")
            baselineTime = try await baseline.insertIntoPostgres(configuration, connections: clients, logger: logger)
        } else {
            let path = "\(directory)/baseline-\(name).sqlite"
            defer { Self.removeStore(path) }
            baselineTime = try await baseline.insertIntoSQLite(path: path)
        }
        return PostingRun(events: workload.events, outcome: outcome, baselineRows: baseline.eventCount, baseline: baselineTime)
    }

    /// Starts the collectors on a fresh store, warms each up with one event, posts the
    /// workload, checks from the store that every event is there once, stops them.
    private func collectorSide(_ workload: IngestWorkload, name: String) async throws -> IngestClients.Outcome {
        var store: [String] = []
        var environment: [String: String] = [:]
        let path = "\(directory)/collector-\(name).sqlite"
        var shared: PostgresStoreConfiguration?
        if let postgres {
            let configuration = Self.withSchema(postgres, "beacon_bench_\(getpid())_\(name)")
            shared = configuration
            // The address goes through the environment: arguments are visible to every user in `ps`.
            environment["BEACON_COLLECTOR_STORE"] = Self.url(configuration)
            store = ["--store-pool-size", String(configuration.poolSize)]
        } else {
            store = ["--db", path]
        }
        defer { if shared == nil { Self.removeStore(path) } }
        var children: [ListeningChild] = []
        do {
            for index in 0..<collectors {
                children.append(try await ListeningChild(command: ListeningChild.collector + store, environment: environment, logPath: "\(directory)/collector-\(name)-\(index).log"))
            }
            let posting = IngestClients(servers: children, clients: clients, logger: logger)
            try await posting.warmUp()
            let outcome = try await posting.post(workload.batches)
            for child in children { await child.stop() }
            children = []
            try await verify(expected: workload.events + collectors, sqlitePath: path, postgres: shared)
            if let shared { try await StoreBaseline.dropPostgresSchema(shared, logger: logger) }
            return outcome
        } catch {
            for child in children { await child.stop() }
            // Best effort: the run's error is the one to report.
            if let shared { try? await StoreBaseline.dropPostgresSchema(shared, logger: logger) }
            throw error
        }
    }

    /// Reads the store's totals (and its rows' count) with a collector of this process.
    private func verify(expected: Int, sqlitePath: String, postgres: PostgresStoreConfiguration?) async throws {
        var configuration = CollectorConfiguration(port: 0, databasePath: postgres == nil ? sqlitePath : nil)
        configuration.postgres = postgres
        let collector = try Collector(configuration: configuration, logger: logger)
        let (totals, rows) = try await collector.withRunning { _ in
            (try await collector.sharedTotals(), try await collector.storedCount())
        }
        guard totals.events == expected, rows == expected else {
            throw CLIError.runtime("ingest benchmark: the store holds \(rows) rows (totals say \(totals.events)), not \(expected)")
        }
    }

    /// `configuration` with its own schema.
    static func withSchema(_ configuration: PostgresStoreConfiguration, _ schema: String) -> PostgresStoreConfiguration {
        var configuration = configuration
        configuration.schema = schema
        return configuration
    }

    /// `configuration` as a `--store` address, password included (it goes to a child's
    /// environment, never to output).
    static func url(_ configuration: PostgresStoreConfiguration) -> String {
        func encoded(_ text: String) -> String {
            text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
        }
        let secret = configuration.password.map { ":" + encoded($0) } ?? ""
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        let schema = configuration.schema.map { "?schema=\($0)" } ?? ""
        return "postgres://\(encoded(configuration.username))\(secret)@\(host):\(configuration.port)/\(encoded(configuration.database))\(schema)"
    }

    /// Removes a SQLite file and its WAL companions.
    static func removeStore(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }  // best effort: temp files
    }
}
