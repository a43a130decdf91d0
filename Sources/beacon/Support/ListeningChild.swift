import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A server this executable runs as users run it, in a process of its own: `beacon
/// collector` (`bench ingest`) or `beacon agent` (`bench agent`, `simulate`), on a free port
/// of 127.0.0.1. Started with `posix_spawn` (Foundation's `Process` crashes now and then
/// on this Linux), its standard output read until it says where it listens (`listening on
/// http://HOST:PORT`), its standard error kept in a log file for when it fails.
final class ListeningChild: @unchecked Sendable {
    // @unchecked: every property is set in `init` and never changed.
    let pid: pid_t
    let port: Int
    let logPath: String

    /// `beacon collector` on a free port of 127.0.0.1, logging warnings and worse; its
    /// store and limits follow.
    static let collector = ["collector", "--host", "127.0.0.1", "--port", "0", "--log-level", "warning"]
    /// `beacon agent` on a free port of 127.0.0.1, logging warnings and worse; its store
    /// and destinations follow.
    static let agent = ["agent", "--listen", "127.0.0.1:0", "--log-level", "warning"]

    /// Starts this executable with `command` (a subcommand that prints its `listening on`
    /// line on stdout, such as ``collector`` plus a store), with `environment` added to this
    /// process's, and waits until it listens (or exits). Its standard error goes to
    /// `logPath`, after what the file holds when `appending`.
    ///
    /// - Throws: ``CLIError`` when it cannot start or exits before listening (with the end of its log).
    init(command: [String], environment: [String: String] = [:], logPath: String, appending: Bool = false) async throws {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        var pipeEnds: [Int32] = [0, 0]
        let name = "beacon " + (command.first ?? "")
        guard pipe(&pipeEnds) == 0 else { throw CLIError.runtime("cannot make a pipe for \(name): errno \(errno)") }
        let (readEnd, writeEnd) = (pipeEnds[0], pipeEnds[1])
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        posix_spawn_file_actions_addopen(&actions, 2, logPath, O_WRONLY | O_CREAT | (appending ? O_APPEND : O_TRUNC), 0o600)
        posix_spawn_file_actions_addclose(&actions, readEnd)
        posix_spawn_file_actions_addclose(&actions, writeEnd)
        let all = [executable] + command
        let argv: [UnsafeMutablePointer<CChar>?] = all.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { _, new in new }
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }
        var spawned: Int32 = 0
        // Registered as it starts: an interrupt from now on stops it too.
        let started = SpawnedChildren.spawn {
            var pid = pid_t()
            spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
            return spawned == 0 ? pid : nil
        }
        close(writeEnd)
        guard let pid = started else {
            close(readEnd)
            if SpawnedChildren.isStopping { throw CLIError.runtime("interrupted: \(name) not started") }
            throw CLIError.runtime("cannot start \(executable) \(command.first ?? ""): error \(spawned)")
        }
        self.pid = pid
        self.logPath = logPath
        let line = await Self.firstLine(of: readEnd)
        close(readEnd)  // the server prints nothing more; a write to a closed pipe is not expected
        guard let port = line.flatMap(Self.port(inListeningLine:)) else {
            kill(pid, SIGKILL)
            _ = Self.reap(pid)
            throw CLIError.runtime("\(name) did not start: \(Self.tail(of: logPath))")
        }
        self.port = port
    }

    /// The port in `listening on http://127.0.0.1:PORT`, or `nil` for any other line.
    static func port(inListeningLine line: String) -> Int? {
        let prefix = "listening on http://"
        guard line.hasPrefix(prefix), let colon = line.lastIndex(of: ":") else { return nil }
        guard let port = Int(line[line.index(after: colon)...]), (1...65_535).contains(port) else { return nil }
        return port
    }

    /// CPU seconds (user and system) the server used so far, from `/proc/PID/stat`; `nil`
    /// when that cannot be read (the process is gone, or no `/proc`): unknown, not zero.
    var cpuSeconds: Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),  // unreadable: no figure
            let end = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: end)...].split(separator: " ")
        // After the command: state is field 3, utime 14 and stime 15 (in clock ticks).
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(max(1, sysconf(Int32(_SC_CLK_TCK))))
    }

    /// Stops the server with SIGTERM (SIGKILL after 10 s) and waits for it.
    func stop() async {
        kill(pid, SIGTERM)
        let pid = self.pid
        let watchdog = Task {
            try await Task.sleep(for: .seconds(10))
            kill(pid, SIGKILL)
        }
        _ = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: Self.reap(pid)) }
        }
        watchdog.cancel()
    }

    /// Kills the server with SIGKILL, as a crash or the OOM killer would, and waits for it.
    func kill9() async {
        kill(pid, SIGKILL)
        let pid = self.pid
        _ = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: Self.reap(pid)) }
        }
    }

    /// Waits for `pid` to end; its wait status.
    static func reap(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        SpawnedChildren.reaped(pid)
        return status
    }

    /// The first line `descriptor` delivers (read on a thread of its own), or `nil` at its end.
    private static func firstLine(of descriptor: Int32) async -> String? {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var bytes: [UInt8] = []
                var byte: UInt8 = 0
                while bytes.count < 4096 {
                    let count = read(descriptor, &byte, 1)
                    if count == 1 {
                        if byte == UInt8(ascii: "\n") { break }
                        bytes.append(byte)
                    } else if count == 0 || errno != EINTR {
                        return continuation.resume(returning: nil)
                    }
                }
                continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
            }
        }
    }

    /// The last lines of the log, for an error message.
    static func tail(of path: String) -> String {
        // An unreadable log leaves only the note that there is none.
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n").suffix(3).joined(separator: " | ")
        guard lines.isEmpty else { return lines }
        // Its reason went to a log that could not take it: say what is likely.
        let folder = (path as NSString).deletingLastPathComponent
        var disk = statvfs()
        if statvfs(folder.isEmpty ? "." : folder, &disk) == 0, disk.f_bavail == 0 {
            return "no output: the disk holding its log \(path) is full (its reason could not be written there)"
        }
        return "no output (its log \(path) is empty)"
    }
}
