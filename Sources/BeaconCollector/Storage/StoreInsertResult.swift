/// Counts from storing one batch, as the database reported them.
public struct StoreInsertResult: Sendable, Hashable {
    /// Events stored now.
    public var stored: Int
    /// Events whose `messageId` was already stored (earlier, or earlier in the same batch).
    public var duplicates: Int

    /// Creates a result.
    public init(stored: Int, duplicates: Int) {
        self.stored = stored
        self.duplicates = duplicates
    }
}
