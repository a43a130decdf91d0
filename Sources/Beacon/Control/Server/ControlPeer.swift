#if canImport(Glibc)
import Glibc
#endif

/// The process at the other end of a control connection, from `SO_PEERCRED`.
public struct ControlPeer: Sendable, Hashable, CustomStringConvertible {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32

    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    /// Whether this peer may command an engine running as `owner`: the same uid, or root.
    public func mayCommand(engineUID owner: UInt32) -> Bool { uid == owner || uid == 0 }

    public var description: String { "uid \(uid) pid \(pid)" }
}

/// The layout of Linux's `struct ucred` (pid, uid, gid), read with `getsockopt`.
struct PeerCredentials: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}
