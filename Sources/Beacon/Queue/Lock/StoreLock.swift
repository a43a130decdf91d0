import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One engine per store: an exclusive `flock(2)` on `STORE.lock`, which the kernel drops
/// when its holder ends, `kill -9` included, so a lock is never left stale. The holder
/// writes its PID and role into the file, so a process refused can say who serves the
/// store.
///
/// Take it before anything else touches the store (before opening the queue or binding
/// the control socket): whoever holds it is the only process that sends from the store,
/// so a control socket found beside the store is then stale by definition.
///
/// ```swift
/// let lock = try StoreLock.acquire(forStore: path, role: "my-service")
/// let queue = try SQLiteEventQueue(path: path)
/// // … run the engine; the lock goes when `lock` is released or the process ends.
/// ```
public final class StoreLock: Sendable {
    /// The lock file's path (`STORE.lock`).
    public let path: String
    /// What this process does with the store, as written in the lock file.
    public let role: String
    private let descriptor: CInt

    private init(path: String, role: String, descriptor: CInt) {
        self.path = path
        self.role = role
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)  // closing drops the lock
    }

    /// The lock file of the store at `store`.
    public static func lockPath(forStore store: String) -> String { store + ".lock" }

    /// Takes the store's lock without waiting, or throws ``StoreLockError`` naming the
    /// holder (``StoreLockError/Kind/held``) or why the lock file cannot be used.
    public static func acquire(forStore store: String, role: String) throws(StoreLockError) -> StoreLock {
        let path = lockPath(forStore: store)
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw StoreLockError(kind: .unusable(reason: String(cString: strerror(errno))), store: store)
        }
        var result: CInt
        repeat { result = flock(descriptor, LOCK_EX | LOCK_NB) } while result != 0 && errno == EINTR
        guard result == 0 else {
            let code = errno
            close(descriptor)
            if code == EWOULDBLOCK { throw StoreLockError(kind: .held(holder: writtenHolder(ofStore: store)), store: store) }
            throw StoreLockError(kind: .unusable(reason: String(cString: strerror(code))), store: store)
        }
        // Ours now: say who holds it. A failed write only makes the holder unknown to others.
        let line = Array("\(getpid()) \(role.filter { !$0.isNewline && $0.asciiValue.map { $0 >= 0x20 } ?? true })\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = line.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        return StoreLock(path: path, role: role, descriptor: descriptor)
    }

    /// ``holder(ofStore:)``, waiting up to 50 ms for a holder that took the lock a moment
    /// ago to write itself into the file.
    static func writtenHolder(ofStore store: String) -> StoreLockHolder? {
        for _ in 0..<10 {
            if let holder = holder(ofStore: store) { return holder }
            usleep(5_000)
        }
        return nil
    }

    /// Who the lock file says holds the store: its PID and role, if written yet.
    public static func holder(ofStore store: String) -> StoreLockHolder? {
        guard let data = FileManager.default.contents(atPath: lockPath(forStore: store)), data.count <= 4096,
            let text = String(data: data, encoding: .utf8)
        else { return nil }
        let line = text.split(separator: "\n").first.map(String.init) ?? ""
        let parts = line.split(separator: " ", maxSplits: 1)
        guard let first = parts.first, let pid = Int32(first), pid > 0 else { return nil }
        return StoreLockHolder(pid: pid, role: parts.count > 1 ? String(parts[1]) : "")
    }
}
