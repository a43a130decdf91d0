import BeaconWire

/// What an operator does to a running engine, beside its settings: pause and resume a
/// destination, and act on dead letters.
extension BeaconEngine {
    /// Pauses one destination (by name), or every one (`nil`): it sends nothing more (a
    /// batch under way finishes first) and its events stay queued until
    /// ``resume(destination:)``. The others go on. Reported as
    /// ``DestinationStatus/State/pausedByOperator``; not kept across restarts.
    /// - Returns: the names paused.
    @discardableResult
    public func pause(destination name: String?) async throws(UnknownDestinationError) -> [String] {
        let chosen = try choose(name)
        for index in chosen { await batchers[index].pause() }
        return chosen.map { destinations[$0].name }
    }

    /// Resumes one destination (by name), or every one (`nil`): lifts an operator's pause
    /// and a pause for refused credentials, cuts a backoff short, and drains what waited
    /// (unless the engine is offline).
    /// - Returns: the names resumed.
    @discardableResult
    public func resume(destination name: String?) async throws(UnknownDestinationError) -> [String] {
        let chosen = try choose(name)
        for index in chosen { await batchers[index].resume() }
        return chosen.map { destinations[$0].name }
    }

    /// The indices of the destination named `name`, or of all of them.
    private func choose(_ name: String?) throws(UnknownDestinationError) -> [Int] {
        guard let name else { return Array(destinations.indices) }
        guard let index = destinations.firstIndex(where: { $0.name == name }) else {
            throw UnknownDestinationError(name: name, known: destinations.map(\.name))
        }
        return [index]
    }

    /// Sends dead letters back into the queue, each once and for its own destination
    /// only, then asks those destinations to flush (a paused one sends them when resumed).
    public func retryDeadLetters(_ selection: DeadLetterSelection) async throws(StorageError) -> DeadLetterChange {
        let change = try await queue.retryDeadLetters(selection)
        for (index, destination) in destinations.enumerated() where change.destinations.contains(destination.name) {
            await batchers[index].flush()
        }
        return change
    }

    /// Deletes dead letters; they are counted in ``EngineSnapshot/Totals/deadLettersPurged``.
    public func purgeDeadLetters(_ selection: DeadLetterSelection) async throws(StorageError) -> DeadLetterChange {
        try await queue.purgeDeadLetters(selection)
    }
}
