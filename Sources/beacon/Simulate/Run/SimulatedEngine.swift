import Beacon
import BeaconWire
import Foundation

/// The engine under test: `beacon agent` in a process of its own over the run's store,
/// sending to the simulated collectors, so that a step can kill it with SIGKILL and start
/// it again as a crash and a supervisor would. Steered through its control channel.
actor SimulatedEngine {
    /// The agent's command line, without the listening address and the log level.
    let arguments: [String]
    let store: String
    let logPath: String
    private var child: ListeningChild?
    /// Processes started so far (1 after the first start).
    private(set) var generation = 0
    /// Told of each process started and ended, so an interrupt can stop it.
    let interrupt: SimulationInterrupt?

    /// The longest wait for an answer on the control channel.
    static let controlTimeout: Duration = .seconds(5)

    init(arguments: [String], store: String, logPath: String, interrupt: SimulationInterrupt?) {
        self.interrupt = interrupt
        self.arguments = arguments
        self.store = store
        self.logPath = logPath
    }

    /// Starts the engine; returns its ingest's port.
    func start() async throws -> Int {
        let child = try await ListeningChild(
            command: ListeningChild.agent + arguments, logPath: logPath, appending: generation > 0)
        self.child = child
        interrupt?.started(child.pid)
        generation += 1
        return child.port
    }

    /// Kills the engine with SIGKILL, waits for it to be gone, and starts it again; returns
    /// the new ingest's port.
    func killAndRestart() async throws -> Int {
        if let child {
            await child.kill9()
            interrupt?.ended(child.pid)
        }
        child = nil
        return try await start()
    }

    /// Stops the engine with SIGTERM (it drains for at most 5 s; what is left stays queued).
    func stop() async {
        if let child {
            await child.stop()
            interrupt?.ended(child.pid)
        }
        child = nil
    }

    /// Sends `command`; `nil` when the engine does not answer in time or refuses.
    func send(_ command: ControlCommand) async -> JSONValue? {
        let client = ControlClient(store: store)
        return await withTaskGroup(of: JSONValue?.self) { group in
            group.addTask {
                guard let response = try? await client.send(command), case .success(let result) = response.outcome else {
                    return nil  // no engine (restarting) or a refusal: the caller records it as unknown
                }
                return result
            }
            group.addTask {
                // The timeout: cancelled (and so thrown out of) when the answer comes first.
                try? await Task.sleep(for: Self.controlTimeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// The engine's status, or `nil` when it does not answer (killed, starting, busy).
    func status() async -> EngineStatusReport? {
        guard let json = await send(.status) else { return nil }
        return EngineStatusReport(json: json)
    }
}
