/// What reads dead letters: a queue, and ``StoreReader`` on a store no engine serves
/// (which it never writes to, nor migrates).
public protocol DeadLetterReading: Sendable {
    /// Dead letters, newest first.
    func deadLetters(limit: Int) async throws(StorageError) -> [DeadLetter]

    /// Dead letters whose id is above `afterID`, oldest first, at most `limit`.
    func deadLetters(afterID: Int64, limit: Int) async throws(StorageError) -> [DeadLetter]

    /// The dead letter with this id, if the store has it.
    func deadLetter(id: Int64) async throws(StorageError) -> DeadLetter?

    /// The newest letters `query` finds (at most `limit`, newest first), and how many it
    /// finds in all.
    func deadLetters(matching query: DeadLetterQuery, limit: Int) async throws(StorageError) -> DeadLetterPage

    /// How many dead letters the store holds.
    func deadLetterCount() async throws(StorageError) -> Int
}
