import BeaconWire
import Logging

/// What an operator does to a running engine, beside its settings: pause and resume a
/// destination, and act on dead letters.
extension BeaconEngine {
    /// Pauses one destination (by name), or every one (`nil`): it sends nothing more (a
    /// batch under way finishes first) and its events stay queued until
    /// ``resume(destination:)``. The others go on. Reported as
    /// ``DestinationStatus/State/pausedByOperator``. The pause is recorded in the queue,
    /// so an engine started later on the same store starts the destination paused; when
    /// the store cannot record it, the pause holds until this engine stops, and the log
    /// says so.
    /// - Returns: the names paused.
    @discardableResult
    public func pause(destination name: String?) async throws(UnknownDestinationError) -> [String] {
        try await pauseRecording(destination: name).names
    }

    /// ``pause(destination:)``, and for each destination whose pause the store could not
    /// record (it holds until this engine stops), why.
    func pauseRecording(destination name: String?) async throws(UnknownDestinationError) -> (names: [String], unrecorded: [String: StorageError]) {
        let chosen = try choose(name)
        for index in chosen { await batchers[index].pause() }
        let unrecorded = await recordPauses(chosen)
        return (chosen.map { destinations[$0].name }, unrecorded)
    }

    /// Resumes one destination (by name), or every one (`nil`): lifts an operator's pause
    /// and a pause for refused credentials, cuts a backoff short, and drains what waited
    /// (unless the engine is offline).
    /// - Returns: the names resumed.
    @discardableResult
    public func resume(destination name: String?) async throws(UnknownDestinationError) -> [String] {
        let chosen = try choose(name)
        await resume(chosen)
        return chosen.map { destinations[$0].name }
    }

    /// Ends the backoff of one destination (by name), or of every one (`nil`): the batch
    /// that failed is tried again now, not at its next retry time. Pauses and offline
    /// stay (``resume(destination:)`` lifts a pause).
    /// - Returns: the names that were backing off (the others are left as they were).
    @discardableResult
    public func retryNow(destination name: String?) async throws(UnknownDestinationError) -> [String] {
        var ended: [String] = []
        for index in try choose(name) where await batchers[index].retryNow() {
            ended.append(destinations[index].name)
        }
        return ended
    }

    /// Resumes the batchers at `indices` and forgets their recorded pauses.
    func resume(_ indices: [Int]) async {
        for index in indices { await batchers[index].resume() }
        await recordPauses(indices)
    }

    /// Records in the queue whether the operator's pause of each destination at `indices`
    /// holds: the batcher's state when it is written, so a pause and a resume racing each
    /// other leave the record as the batcher ends up. A store that fails is logged: the
    /// pause in memory stands either way.
    @discardableResult
    private func recordPauses(_ indices: [Int]) async -> [String: StorageError] {
        var unrecorded: [String: StorageError] = [:]
        for index in indices {
            let name = destinations[index].name
            let paused = await batchers[index].isPausedByOperator
            do {
                try await queue.recordPause(paused, destination: name)
            } catch {
                unrecorded[name] = error
                logger.warning(
                    paused
                        ? "destination paused, but the store could not record it: it will not be paused after a restart"
                        : "destination resumed, but the store could not forget its pause: it may start paused after a restart",
                    metadata: ["destination": "\(name)", "error": "\(error)"])
            }
        }
        return unrecorded
    }

    /// Pauses again the destinations an operator paused before the engine last stopped
    /// (``pause(destination:)`` records them in the queue). Runs before the batchers start.
    func restoreRecordedPauses() async {
        let paused: Set<String>
        do {
            paused = try await queue.pausedDestinations()
        } catch {
            // Stopped while starting (a flush of an empty store is done at once): no
            // batcher will start, and the read failed only because it was cancelled.
            if Task.isCancelled { return }
            logger.error(
                "could not read which destinations an operator paused; every destination starts unpaused",
                metadata: ["error": "\(error)"])
            return
        }
        for (index, destination) in destinations.enumerated() where paused.contains(destination.name) {
            await batchers[index].pause()
            logger.notice("destination still paused by an operator (resume it to send)", metadata: ["destination": "\(destination.name)"])
        }
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
