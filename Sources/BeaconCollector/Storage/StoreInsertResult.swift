/// Counts from storing one batch, as the database reported them.
struct StoreInsertResult: Sendable, Hashable {
    /// Events stored now.
    var stored: Int
    /// Events whose `messageId` was already stored (earlier, or earlier in the same batch).
    var duplicates: Int
}
