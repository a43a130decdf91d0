import Beacon

extension StoreLock {
    /// The store's lock for a command that sends from the store or changes it, or the
    /// one-line refusal that names the holder (exit 1; exit 2 when the lock file itself
    /// cannot be made, a path problem).
    static func take(forStore store: String, role: String) throws -> StoreLock {
        do {
            return try acquire(forStore: store, role: role)
        } catch {
            switch error.kind {
            case .held: throw CLIError.runtime(error.description)
            case .unusable: throw CLIError.badInput(error.description)
            }
        }
    }
}
