import BeaconWire
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One engine per store: an exclusive `flock(2)` on the store's own file, which every
/// path to it meets (a symlink, a hard link, a bind mount of its folder) and which the
/// kernel drops when its holder ends, `kill -9` included, so a lock is never left stale.
///
/// Beside it, `STORE.lock` says who holds the store (PID and role) and is locked too, so
/// that a Beacon from before 0.6, which locks only that file, is kept out as well. It is
/// a label, not the lock: removing or replacing it lets no second engine in. A refused
/// process names the holder the kernel reports (`/proc/locks`), not what a file says.
///
/// Take it before anything else touches the store (before opening the queue or binding
/// the control socket): whoever holds it is the only process that sends from the store,
/// so a control socket found beside the store is then stale by definition.
///
/// Released (or refused), its descriptor on the store stays open until the process ends,
/// unlocked, and is used again by the next lock of the same store: closing any descriptor
/// of a file drops every POSIX lock the process holds on it, SQLite's own included.
///
/// ```swift
/// let lock = try StoreLock.acquire(forStore: path, role: "my-service")
/// let queue = try SQLiteEventQueue(path: path)
/// // … run the engine; the lock goes when `lock` is released or the process ends.
/// ```
public final class StoreLock: Sendable {
    /// The holder file's path (`STORE.lock`).
    public let path: String
    /// The store's path, as given.
    public let store: String
    /// What this process does with the store, as written in the holder file.
    public let role: String
    /// The store file's device and inode, which the lock is on.
    public let identity: FileIdentity
    private let descriptor: CInt
    /// The holder file open and locked: the one at ``path``, or the one that was there.
    private let labelDescriptor: Mutex<CInt>

    private init(path: String, store: String, role: String, identity: FileIdentity, descriptor: CInt, labelDescriptor: CInt) {
        self.path = path
        self.store = store
        self.role = role
        self.identity = identity
        self.descriptor = descriptor
        self.labelDescriptor = Mutex(labelDescriptor)
    }

    deinit {
        close(labelDescriptor.withLock { $0 })  // closing drops its lock; no SQLite file
        Self.park(descriptor, identity)
    }

    /// The holder file of the store at `store`.
    public static func lockPath(forStore store: String) -> String { store + ".lock" }

    /// Takes the store's lock without waiting, or throws ``StoreLockError`` naming the
    /// holder (``StoreLockError/Kind/held``) or why the store cannot be locked. Creates
    /// the store's file (empty, which SQLite takes for a new database) when there is none.
    public static func acquire(forStore store: String, role: String) throws(StoreLockError) -> StoreLock {
        // A store replaced between its opening and its lock is opened again (a few times).
        var attempt = 0
        while true {
            attempt += 1
            let (descriptor, identity) = try storeDescriptor(store)
            var result: CInt
            repeat { result = flock(descriptor, LOCK_EX | LOCK_NB) } while result != 0 && errno == EINTR
            guard result == 0 else {
                let code = errno
                park(descriptor, identity)
                if code == EWOULDBLOCK {
                    throw StoreLockError(kind: .held(holder: holder(of: identity, store: store)), store: store)
                }
                throw StoreLockError(kind: .unusable(reason: String(cString: strerror(code))), store: store)
            }
            guard FileIdentity(path: store) == identity else {
                _ = flock(descriptor, LOCK_UN)
                park(descriptor, identity)
                if attempt < 5 { continue }
                throw StoreLockError(kind: .unusable(reason: "it is being replaced"), store: store)
            }
            do {
                let label = try takeLabel(forStore: store, role: role)
                return StoreLock(path: lockPath(forStore: store), store: store, role: role, identity: identity, descriptor: descriptor, labelDescriptor: label)
            } catch {
                _ = flock(descriptor, LOCK_UN)
                park(descriptor, identity)
                throw error
            }
        }
    }

    /// Whether this lock still holds the store at its path and its holder file names this
    /// process; a holder file removed or replaced is written again (and said in `problems`).
    /// A store file removed or replaced is beyond repair: events tracked to the path go
    /// to another file than the one this engine sends from.
    public func check() -> StoreLockCheck {
        var problems: [String] = []
        if FileIdentity(path: store) != identity {
            problems.append("the store file \(store) was removed or replaced while this process serves it (its events go elsewhere now)")
        }
        labelDescriptor.withLock { label in
            let atPath = FileIdentity(path: path)
            let ours = atPath != nil && atPath == FileIdentity(descriptor: label)
            guard !ours || Self.holder(ofStore: store)?.pid != getpid() else { return }
            problems.append("the holder file \(path) was removed or changed; written again (the lock is on the store itself and holds)")
            if ours {
                Self.writeLabel(label, role: role)
                return
            }
            // Another file at the path, or none: label a new one and let the old go (a
            // holder file is no SQLite file: closing it drops no lock of the store's). If it
            // cannot be made (a folder made read-only), the next check tries again.
            guard let fresh = try? Self.labelFile(path) else { return }
            _ = flock(fresh, LOCK_EX | LOCK_NB)  // for Beacons before 0.6, which lock only this file
            Self.writeLabel(fresh, role: role)
            close(label)
            label = fresh
        }
        return StoreLockCheck(problems: problems)
    }

    // MARK: The store's descriptor

    /// Descriptors on stores this process locked once, unlocked now, by the store's identity.
    private static let parked = Mutex<[FileIdentity: [CInt]]>([:])

    private static func park(_ descriptor: CInt, _ identity: FileIdentity) {
        parked.withLock { $0[identity, default: []].append(descriptor) }
    }

    /// A descriptor on the store's file (one parked, when there is one), and its identity.
    private static func storeDescriptor(_ store: String) throws(StoreLockError) -> (CInt, FileIdentity) {
        if let identity = FileIdentity(path: store),
            let descriptor = parked.withLock({ $0[identity]?.popLast() })
        {
            return (descriptor, identity)
        }
        // Non-blocking: a FIFO at the path must not hang the open.
        let descriptor = open(store, O_RDONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0o644)
        guard descriptor >= 0 else {
            throw StoreLockError(kind: .unusable(reason: String(cString: strerror(errno))), store: store)
        }
        guard FileIdentity.isRegularFile(descriptor), let identity = FileIdentity(descriptor: descriptor) else {
            close(descriptor)  // not a store file: SQLite has no lock on it to lose
            throw StoreLockError(kind: .unusable(reason: "it is not a regular file"), store: store)
        }
        return (descriptor, identity)
    }

    // MARK: The holder file

    private static func labelFile(_ path: String) throws(StoreLockError) -> CInt {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        guard descriptor >= 0 else {
            throw StoreLockError(kind: .unusable(reason: "its holder file \(path): \(String(cString: strerror(errno)))"), store: path)
        }
        return descriptor
    }

    /// Opens, locks and writes `STORE.lock`; held by a Beacon that locks only that file: refused.
    private static func takeLabel(forStore store: String, role: String) throws(StoreLockError) -> CInt {
        let path = lockPath(forStore: store)
        let descriptor: CInt
        do { descriptor = try labelFile(path) } catch { throw StoreLockError(kind: error.kind, store: store) }
        var result: CInt
        repeat { result = flock(descriptor, LOCK_EX | LOCK_NB) } while result != 0 && errno == EINTR
        guard result == 0 else {
            let code = errno
            close(descriptor)
            if code == EWOULDBLOCK { throw StoreLockError(kind: .held(holder: writtenHolder(ofStore: store)), store: store) }
            throw StoreLockError(kind: .unusable(reason: "its holder file \(path): \(String(cString: strerror(code)))"), store: store)
        }
        writeLabel(descriptor, role: role)
        return descriptor
    }

    /// Says who holds it. A failed write only makes the holder unknown to others' messages.
    private static func writeLabel(_ descriptor: CInt, role: String) {
        let line = Array("\(getpid()) \(role.filter { !$0.isNewline && $0.asciiValue.map { $0 >= 0x20 } ?? true })\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = line.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    }

    // MARK: Who holds it

    /// The process holding the lock on the store with `identity`: the one the kernel names,
    /// with the role its holder file gives (or its command line); else the holder file's,
    /// when that process still runs.
    static func holder(of identity: FileIdentity, store: String) -> StoreLockHolder? {
        guard let pid = kernelHolder(of: identity) else {
            guard let written = writtenHolder(ofStore: store), kill(written.pid, 0) == 0 || errno == EPERM else { return nil }
            return written
        }
        // The holder writes its role a moment after it locks: wait up to 50 ms for it,
        // beside the path given or the file a symlink names (a hard link's other name is
        // not known: its command line says what it is).
        var names = [store]
        if let resolved = realpath(store, nil) {
            names.append(String(cString: resolved))
            free(resolved)
        }
        for _ in 0..<10 {
            for name in names {
                if let written = holder(ofStore: name), written.pid == pid { return written }
            }
            usleep(5_000)
        }
        return StoreLockHolder(pid: pid, role: commandName(of: pid))
    }

    /// The PID that holds a `flock` on the file with `identity`, as `/proc/locks` says.
    static func kernelHolder(of identity: FileIdentity) -> Int32? {
        guard let data = FileManager.default.contents(atPath: "/proc/locks"), let text = String(data: data, encoding: .utf8) else {
            return nil
        }
        let key = identity.procLocksKey
        for line in text.split(separator: "\n") {
            // "1: FLOCK  ADVISORY  WRITE 4242 fe:00:16220226 0 EOF"; a waiter's line has "->".
            let fields = line.split(separator: " ")
            guard fields.count >= 6, fields[1] == "FLOCK", fields[3] == "WRITE", fields[5] == key, let pid = Int32(fields[4]), pid > 0
            else { continue }
            return pid
        }
        return nil
    }

    /// `beacon agent` for a process run as `/usr/bin/beacon agent --db …`; empty when unknown.
    static func commandName(of pid: Int32) -> String {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return "" }
        let arguments = data.split(separator: 0, omittingEmptySubsequences: false).prefix(2).map {
            String(decoding: $0, as: UTF8.self)
        }
        guard let program = arguments.first?.split(separator: "/").last.map(String.init), !program.isEmpty else { return "" }
        let words = [program] + arguments.dropFirst().filter { !$0.isEmpty && !$0.hasPrefix("-") }
        return String(PrintableText.line(words.joined(separator: " ")).prefix(80))
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

    /// Who the holder file says holds the store: its PID and role, if written yet.
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
