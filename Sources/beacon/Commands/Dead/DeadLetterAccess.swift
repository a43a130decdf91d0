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
    func perform(_ command: ControlCommand) async throws -> (JSONValue, Route) {
        let client = ControlClient(store: db)
        do {
            let response = try await answer(client, command)
            switch response.outcome {
            case .success(let result): return (result, .engine)
            case .failure(let refusal): throw CLIError.runtime("the engine refused '\(command.name)': \(refusal.reason)")
            }
        } catch let error as ControlClientError where error.kind == .noEngine {
            return (try await performOnStore(command), .store)
        }
    }

    /// Whether an engine serves the store now (for prompts).
    func engineServes() async -> Bool {
        do {
            _ = try await answer(ControlClient(store: db), .status)
            return true
        } catch {
            return false  // no answer on the socket: no engine serves it (the command works on the store)
        }
    }

    private func answer(_ client: ControlClient, _ command: ControlCommand) async throws -> ControlResponse {
        try await withThrowingTaskGroup(of: ControlResponse?.self) { group in
            group.addTask { try await client.send(command) }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let response = try await group.next() ?? nil else {
                throw CLIError.runtime("the engine at \(client.socketPath) did not answer within \(timeout)")
            }
            return response
        }
    }

    /// No engine serves the store: open it (it must exist) and act on it directly.
    private func performOnStore(_ command: ControlCommand) async throws -> JSONValue {
        guard FileManager.default.fileExists(atPath: db) else {
            throw CLIError.badInput("no store at \(db) (and no engine serves it); check --db")
        }
        if let problem = StorePath.problem(db) { throw CLIError.badInput("cannot open the store \(db): \(problem)") }
        // Reading opens the store read-only: a store an older Beacon wrote is not migrated by a listing.
        let reader: StoreReader
        do {
            reader = try StoreReader(path: db)
        } catch {
            throw error.cli(path: db)
        }
        if let read = await DeadLetterCommands.read(command, from: reader) {
            switch read {
            case .success(let answer): return answer.json
            case .failure(let refusal): throw CLIError.runtime("refused '\(command.name)' on \(db): \(refusal.reason)")
            }
        }
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
