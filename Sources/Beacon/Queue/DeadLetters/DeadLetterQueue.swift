import BeaconWire

/// Dead letters to read, retry and purge: what `beacon dead` and the console's
/// workbench use. Part of ``EventQueue``.
public protocol DeadLetterQueue: DeadLetterReading {
    /// Sends the selected dead letters back into the queue, each for its own destination
    /// only (the others are done with it), in one transaction that also deletes them from
    /// the dead-letter table: each is queued once, however often this is called. A letter
    /// whose destination is not registered is refused and kept. When an id asked for is
    /// not in the store, nothing changes and the change lists it in `missing`.
    func retryDeadLetters(_ selection: DeadLetterSelection) async throws(StorageError) -> DeadLetterChange

    /// Deletes the selected dead letters, counted in ``QueueTotals/deadLettersPurged``;
    /// as ``retryDeadLetters(_:)``, a missing id changes nothing.
    func purgeDeadLetters(_ selection: DeadLetterSelection) async throws(StorageError) -> DeadLetterChange
}

extension DeadLetterQueue {
    /// For queues that keep no dead-letter ids: pages through ``deadLetters(limit:)``.
    public func deadLetters(afterID: Int64, limit: Int) async throws(StorageError) -> [DeadLetter] {
        Array(try await deadLetters(limit: .max).reversed().filter { $0.id > afterID }.prefix(max(0, limit)))
    }

    public func deadLetter(id: Int64) async throws(StorageError) -> DeadLetter? {
        try await deadLetters(limit: .max).first { $0.id == id }
    }

    /// For queues that keep no index: filters ``deadLetters(limit:)``.
    public func deadLetters(matching query: DeadLetterQuery, limit: Int) async throws(StorageError) -> DeadLetterPage {
        let found = try await deadLetters(limit: .max).filter(query.matches)
        return DeadLetterPage(letters: Array(found.prefix(max(0, limit))), total: found.count)
    }
}
