import Beacon
import BeaconWire
import Foundation

/// Carries out a dead-letter command through the engine serving a store, or on the store
/// itself when no engine serves it.
struct DeadLetterAccess {
    let db: String
    let timeout: Duration

    /// Whether an engine answered.
    enum Route { case engine, store }

    /// The command's result as the control channel gives it; a refusal is a ``CLIError``
    /// (exit 1), a missing or unreadable store exit 2.
    ///
    /// Through the engine when one answers on the store's control socket. Otherwise reads
    /// work on the store directly (read-only), and changes under the store's lock
    /// (``StoreLock``), so that two `dead retry` of one id, or one beside an engine that
    /// is starting, never both act: while another process holds the lock and no engine
    /// answers yet, it waits for either, up to the timeout.
    func perform(_ command: ControlCommand) async throws -> (JSONValue, Route) {
        let deadline = ContinuousClock.now + timeout
        while true {
            switch await ControlCall.outcome(ControlClient(store: db), command, within: timeout) {
            case .response(let response):
                switch response.outcome {
                case .success(let result): return (result, .engine)
                case .failure(let refusal): throw CLIError.runtime("the engine refused '\(command.name)': \(refusal.reason)")
                }
            case .failed(let reason):
                throw CLIError.runtime(reason)
            case .noEngine:
                break  // no engine answers: act on the store
            }
            if command.isRead, let read = await DeadLetterCommands.read(command, from: try openReader()) {
                switch read {
                case .success(let answer): return (answer.json, .store)
                case .failure(let refusal): throw CLIError.runtime("refused '\(command.name)' on \(db): \(refusal.reason)")
                }
            }
            try refuseMissingStore()
            let lock: StoreLock
            do {
                lock = try StoreLock.acquire(forStore: db, role: "beacon dead \(command.name)")
            } catch {
                guard case .held = error.kind else { throw CLIError.badInput(error.description) }
                guard ContinuousClock.now < deadline else {
                    throw CLIError.runtime("\(error.description); no engine answered on its control socket within \(timeout)")
                }
                try await Task.sleep(for: .milliseconds(20))
                continue
            }
            let result = try await change(command)
            withExtendedLifetime(lock) {}
            return (result, .store)
        }
    }

    /// Whether an engine may serve the store now (for prompts): one answers, or something
    /// listens on its control socket and does not answer (then the command fails anyway,
    /// and asking first was the careful default).
    func engineServes() async -> Bool {
        if case .noEngine = await ControlCall.outcome(ControlClient(store: db), .status, within: timeout) { return false }
        return true
    }

    /// No engine serves the store: open it read-only (it must exist). A listing does not
    /// migrate a store an older Beacon wrote.
    private func openReader() throws -> StoreReader {
        try refuseMissingStore()
        if let problem = StorePath.problem(db) { throw CLIError.badInput("cannot open the store \(db): \(problem)") }
        do {
            return try StoreReader(path: db)
        } catch {
            throw error.cli(path: db)
        }
    }

    /// Refuses a store that cannot be there: a path too long to open, or no file.
    private func refuseMissingStore() throws {
        if let tooLong = StorePathLength.problem(db) { throw CLIError.badInput("cannot open the store \(db): \(tooLong)") }
        guard FileManager.default.fileExists(atPath: db) else {
            throw CLIError.badInput("no store at \(db) (and no engine serves it); check --db")
        }
    }

    /// No engine serves the store and this process holds its lock: change it directly.
    private func change(_ command: ControlCommand) async throws -> JSONValue {
        let queue: SQLiteEventQueue
        do {
            queue = try SQLiteEventQueue(path: db)
        } catch {
            throw error.cli(path: db)
        }
        let result = await DeadLetterCommands.perform(command, on: queue)
        _ = await queue.close()
        switch result {
        case .success(let answer): return answer.json
        case .failure(let refusal): throw CLIError.runtime("refused '\(command.name)' on \(db): \(refusal.reason)")
        }
    }
}
