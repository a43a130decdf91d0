/// Why a store's lock (``StoreLock``) could not be taken.
public struct StoreLockError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// Another process holds it: the holder, when the lock file names one yet.
        case held(holder: StoreLockHolder?)
        /// The store's file or its holder file cannot be opened or locked: the system's reason.
        case unusable(reason: String)
    }

    public var kind: Kind
    /// The store whose lock was asked for.
    public var store: String

    public init(kind: Kind, store: String) {
        self.kind = kind
        self.store = store
    }

    public var description: String {
        switch kind {
        case .held(let holder):
            let who = holder.map(\.description) ?? "another process"
            return "\(store) is served by \(who); one engine serves a store at a time (stop it, or act through it with `beacon ctl --db \(store)`)"
        case .unusable(let reason):
            return "cannot lock the store \(store): \(reason)"
        }
    }
}
