import BeaconWire
import Logging

extension BeaconEngine {
    /// Serves this engine's control channel beside its store (`STORE.control`, mode 0600,
    /// commands from this uid or root only) until ``ControlServer/close()``.
    ///
    /// ```swift
    /// let control = try await engine.serveControl()
    /// defer { Task { await control.close() } }
    /// ```
    ///
    /// - Parameter path: the socket's path; default ``ControlProtocol/socketPath(forStore:)``
    ///   of the queue's location.
    public func serveControl(
        at path: String? = nil, logger: Logger = Logger(label: "beacon.control")
    ) async throws(ControlServerError) -> ControlServer {
        try await ControlServer.start(path: path ?? ControlProtocol.socketPath(forStore: queue.location), logger: logger) {
            command in await self.perform(command)
        }
    }

    /// Carries out one control command.
    func perform(_ command: ControlCommand) async -> Result<JSONValue, ControlRefusal> {
        switch command {
        case .status:
            return .success(await controlStatus())
        case .flush:
            guard !settings.current.isOffline else {
                return .failure(ControlRefusal(reason: "the engine is offline; send 'online' first"))
            }
            await flush()
            return .success(["flushing": true])
        case .offline:
            setOffline(true)
            return .success(["offline": true])
        case .online:
            setOffline(false)
            return .success(["offline": false])
        case .policy(let text):
            do {
                let policy = try FlushPolicy(parsing: text)
                setPolicy(policy)
                return .success(["policy": .string(policy.description)])
            } catch {
                return .failure(ControlRefusal(reason: error.description))
            }
        case .batchSize(let size):
            let sizes = ControlProtocol.batchSizes
            guard sizes.contains(size) else {
                return .failure(ControlRefusal(reason: "batch size must be \(sizes.lowerBound)...\(sizes.upperBound), not \(size)"))
            }
            setBatchSize(size)
            return .success(["batchSize": .int(size)])
        }
    }

    /// The `status` result: policy, batch size, offline, depth and each destination.
    func controlStatus() async -> JSONValue {
        let current = settings.current
        let depth = queue.depth
        let states = Dictionary(
            (await observer.snapshot).destinations.map { ($0.name, $0.state) }, uniquingKeysWith: { first, _ in first })
        return [
            "policy": .string(current.policy.description),
            "batchSize": .int(current.batchSize),
            "offline": .bool(current.isOffline),
            "depth": .int(depth.events),
            "store": .string(queue.location),
            "destinations": .array(destinations.map { destination in
                var paused = false
                if case .paused? = states[destination.name] { paused = true }
                return [
                    "name": .string(destination.name), "paused": .bool(paused),
                    "pending": .int(depth.pending(for: destination.name)),
                ]
            }),
        ]
    }
}
