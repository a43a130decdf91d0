/// The process holding a store's lock, as it wrote itself into the lock file.
public struct StoreLockHolder: Sendable, Hashable, CustomStringConvertible {
    /// Its process id.
    public var pid: Int32
    /// What it does with the store (`beacon agent`, `beacon flush`, …).
    public var role: String

    public init(pid: Int32, role: String) {
        self.pid = pid
        self.role = role
    }

    public var description: String { role.isEmpty ? "process \(pid)" : "process \(pid) (\(role))" }
}
