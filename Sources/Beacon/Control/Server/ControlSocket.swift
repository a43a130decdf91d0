#if canImport(Glibc)
import Glibc
#endif

/// The POSIX side of the control socket: binding it private to its user, telling a stale
/// socket file from a live one, and removing only our own file.
enum ControlSocket {
    /// What answers at a socket path.
    enum Probe: Equatable {
        case nothing
        /// A socket file nobody listens on (left by a killed engine).
        case stale
        case live
        /// Something else is there: the reason.
        case unusable(String)
    }

    /// Looks at `path` without disturbing a live engine beyond one connect and close.
    static func probe(_ path: String) -> Probe {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            return errno == ENOENT ? .nothing : .unusable("cannot look at it: \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFSOCK else { return .unusable("it exists and is not a socket; move it away") }
        let name: ReachableName
        switch ReachableName.of(path) {
        case .success(let reachable): name = reachable
        case .failure(let error): return .unusable(error.reason)
        }
        defer { name.close() }
        guard var address = address(name.path) else { return .unusable("the path is longer than a Unix socket allows (107 bytes)") }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .unusable("cannot make a socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if result == 0 { return .live }
        switch errno {
        case ECONNREFUSED: return .stale
        case EAGAIN, EINPROGRESS: return .live  // a listener whose backlog is full is alive
        case ENOENT: return .nothing
        default: return .unusable("connecting to it failed: \(String(cString: strerror(errno)))")
        }
    }

    /// A socket bound at `path` with mode 0600 (set on the socket before `bind`, which
    /// Linux copies to the file, so there is no moment when others may connect), and the
    /// inode of the file it made.
    static func bindPrivate(_ path: String) -> Result<(fd: CInt, inode: UInt64), ControlServerError> {
        let name: ReachableName
        switch ReachableName.of(path) {
        case .success(let reachable): name = reachable
        case .failure(let error): return .failure(error)
        }
        defer { name.close() }
        guard var address = address(name.path) else {
            return .failure(ControlServerError(path: path, reason: "the path is longer than a Unix socket allows (107 bytes)"))
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(ControlServerError(path: path, reason: "cannot make a socket: \(String(cString: strerror(errno)))")) }
        guard fchmod(fd, 0o600) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            return .failure(ControlServerError(path: path, reason: "cannot make the socket private: \(reason)"))
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            if code == EADDRINUSE {
                return .failure(ControlServerError(path: path, reason: "another engine serves this store (its control socket is in use)"))
            }
            return .failure(ControlServerError(path: path, reason: "cannot bind: \(String(cString: strerror(code)))"))
        }
        // Belt and braces on systems that take the mode from the umask alone.
        guard chmod(path, 0o600) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            unlink(path)
            return .failure(ControlServerError(path: path, reason: "cannot make the socket private: \(reason)"))
        }
        var info = stat()
        let inode = lstat(path, &info) == 0 ? UInt64(info.st_ino) : 0
        return .success((fd, inode))
    }

    /// Removes the socket file if it is still the one we made.
    static func removeIfOurs(_ path: String, inode: UInt64) {
        var info = stat()
        guard lstat(path, &info) == 0, UInt64(info.st_ino) == inode else { return }
        unlink(path)
    }

    /// The longest socket path used as it is: 103 bytes, what SwiftNIO's client accepts
    /// (the kernel's `sun_path` holds 107 and the NUL). Longer ones go through their directory.
    static let maxPathBytes = 103

    /// Whether a socket can be at `path`: the path fits, or its file name does, reached
    /// through its directory (``ReachableName``).
    static func fits(_ path: String) -> Bool {
        if path.utf8.count <= maxPathBytes { return true }
        let name = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).last?.count ?? 0
        // "/proc/self/fd/" + a descriptor of up to 7 digits + "/".
        return name + 22 <= maxPathBytes
    }

    /// A name for the socket at `path` that fits `sun_path`: the path itself when it fits,
    /// else `/proc/self/fd/N/NAME`, through its directory opened as descriptor `N`, which
    /// stays open until ``close()``. So a store whose path is longer than a socket path
    /// may be still has a control channel, and `ctl`, `dead` and `monitor` reach it.
    struct ReachableName {
        /// What to bind or connect to.
        let path: String
        private let directory: CInt?

        /// `path`, or how to reach it, or why it cannot be reached.
        static func of(_ path: String) -> Result<ReachableName, ControlServerError> {
            if path.utf8.count <= maxPathBytes { return .success(ReachableName(path: path, directory: nil)) }
            let bytes = Array(path.utf8)
            guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else {
                return .failure(ControlServerError(path: path, reason: "the socket's name is longer than a Unix socket allows (\(maxPathBytes) bytes)"))
            }
            let directoryPath = slash == 0 ? "/" : String(decoding: bytes[..<slash], as: UTF8.self)
            let name = String(decoding: bytes[(slash + 1)...], as: UTF8.self)
            let descriptor = open(directoryPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else {
                return .failure(ControlServerError(path: path, reason: "cannot open its directory: \(String(cString: strerror(errno)))"))
            }
            let short = "/proc/self/fd/\(descriptor)/\(name)"
            guard short.utf8.count <= maxPathBytes else {
                Glibc.close(descriptor)
                return .failure(ControlServerError(
                    path: path, reason: "the socket's file name is longer than a Unix socket allows (\(maxPathBytes) bytes with its directory's descriptor); use a shorter store file name"))
            }
            return .success(ReachableName(path: short, directory: descriptor))
        }

        /// Closes the directory, once bound or connected.
        func close() {
            if let directory { Glibc.close(directory) }
        }
    }

    static func address(_ path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity, !bytes.contains(0) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        return address
    }
}
