/// Where the console's operator-log view reads the commands kept in a store: a
/// ``StoreReader`` (read-only, whoever serves the store).
public protocol OperatorActionReading: Sendable {
    /// The newest `limit` kept commands, newest first.
    func operatorActions(limit: Int) async throws(StorageError) -> [OperatorAction]
}
