import Beacon
import Foundation
import Logging

/// One run of `beacon bench agent`: `clients` clients posting a workload's batches to a
/// `beacon agent` process over a fresh store (every 200 answered after the commit), then
/// the raw insert of the same rows into another fresh store (``QueueInsertBaseline``),
/// with the log copied untimed (judged) and as SQLite copies it by default (reported).
struct AgentBenchmark {
    /// Where each run's stores and the agent's log go (a directory of its own per run).
    var directory: String
    var clients: Int
    var durability: DurabilityOption
    var logger: Logger

    /// The agent's destination: never sent to (the policy is manual, and the agent is put
    /// offline before it stops, so its shutdown drain is skipped too).
    static let destination = "log:"

    /// Runs the agent side, then the baseline, of run number `run`.
    func run(_ workload: IngestWorkload, baseline: QueueInsertBaseline, run: Int) async throws -> PostingRun {
        let runDirectory = "\(directory)/run-\(run)"
        try FileManager.default.createDirectory(atPath: runDirectory, withIntermediateDirectories: true)
        defer {
            do { try FileManager.default.removeItem(atPath: runDirectory) } catch { Output.error("beacon: could not remove \(runDirectory): \(error)") }
        }
        let outcome = try await agentSide(workload, directory: runDirectory)
        let baselineTime = try baseline.insert(path: "\(runDirectory)/baseline.sqlite", durability: durability.durability)
        let copyingTime = try baseline.insert(
            path: "\(runDirectory)/baseline-copying.sqlite", durability: durability.durability, logCopy: .automatic)
        var figures = PostingRun(events: workload.events, outcome: outcome, baselineRows: baseline.rowCount, baseline: baselineTime)
        figures.copyingBaselineRowsPerSecond = Double(baseline.rowCount) / copyingTime.inSeconds
        return figures
    }

    /// Starts the agent on a fresh store, warms it up with one event, posts the workload,
    /// puts it offline and stops it, then checks from its store that every event is there.
    private func agentSide(_ workload: IngestWorkload, directory: String) async throws -> IngestClients.Outcome {
        let path = "\(directory)/agent.sqlite"
        StoreRest.flushFilesystem()
        let agent = try await ListeningChild(
            command: ListeningChild.agent + [
                "--db", path, "--endpoint", Self.destination, "--policy", "manual", "--durability", durability.rawValue,
                // Raised so that any run fits: a full queue would answer 503.
                "--max-queue-events", String(QueueBoundsOptions.events.upperBound), "--max-queue-bytes", String(QueueBoundsOptions.bytes.upperBound),
            ],
            logPath: "\(directory)/agent.log")
        do {
            let posting = IngestClients(servers: [agent], clients: clients, logger: logger)
            try await posting.warmUp()
            let outcome = try await posting.post(workload.batches)
            try await Self.takeOffline(store: path)
            await agent.stop()
            try await Self.verify(store: path, expected: workload.events + 1, log: agent.logPath)
            return outcome
        } catch {
            await agent.stop()
            throw error
        }
    }

    /// Puts the agent serving `store` offline through its control channel, so that its
    /// shutdown drain does not try to send the whole store.
    private static func takeOffline(store: String) async throws {
        let response: ControlResponse
        do {
            response = try await ControlClient(store: store).send(.offline)
        } catch {
            throw CLIError.runtime("agent benchmark: cannot reach the agent's control channel: \(error)")
        }
        guard response.isApplied else { throw CLIError.runtime("agent benchmark: the agent refused 'offline': \(response.outcome)") }
    }

    /// Checks that the stopped agent's store holds `expected` events.
    private static func verify(store: String, expected: Int, log: String) async throws {
        let status = try await StoreReader(path: store).status(batchLimit: 0, deadLetterLimit: 0)
        guard status.depth == expected, status.totals.committed == expected else {
            throw CLIError.runtime(
                "agent benchmark: the agent's store holds \(status.depth) events (\(status.totals.committed) committed), "
                    + "not \(expected); its log: \(ListeningChild.tail(of: log))")
        }
    }
}
