import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process of a benchmark (a collector, the memory figure's tracker), started
/// with `posix_spawn` (Foundation's `Process.run` crashes now and then on this Linux),
/// its stdout on a pipe read line by line, its stderr passed through or discarded.
final class BenchChild: @unchecked Sendable {
    // @unchecked: `pid` and `output` are set in `init`; `reaped` and `buffer` are only
    // touched by the one task that owns the child.
    let pid: pid_t
    let command: String
    private let output: Int32
    private var buffer: [UInt8] = []
    private var reaped: Int32?

    /// This executable, for children that run another `beacon` command.
    static var currentExecutable: String {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    }

    /// Starts `executable` with `arguments`; stderr goes to ours when `passStderr`. With a
    /// `terminal`, the child's stdin, stdout and stderr are that terminal instead (what it
    /// paints is read from the terminal's other side) and `TERM` is `xterm-256color`.
    init(executable: String, arguments: [String], passStderr: Bool = false, terminal: PseudoTerminal? = nil) throws {
        var pipeEnds: [Int32] = [-1, -1]
        if let terminal {
            pipeEnds = [dup(terminal.controller), open("/dev/null", O_WRONLY)]
        } else {
            guard pipe(&pipeEnds) == 0 else { throw CLIError.runtime("bench: cannot make a pipe: \(String(cString: strerror(errno)))") }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let terminal {
            posix_spawn_file_actions_addopen(&actions, 0, terminal.devicePath, O_RDWR, 0)
            posix_spawn_file_actions_adddup2(&actions, 0, 1)
            posix_spawn_file_actions_adddup2(&actions, 0, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
            if !passStderr { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
        }
        if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, 3) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var environment = ProcessInfo.processInfo.environment
        if terminal != nil { environment["TERM"] = "xterm-256color" }
        let variables = environment.map { "\($0.key)=\($0.value)" }
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup($0) } + [nil]
        defer { for pointer in envp { free(pointer) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        close(pipeEnds[1])
        guard spawned == 0 else {
            close(pipeEnds[0])
            throw CLIError.runtime("bench: cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        pid = child
        output = pipeEnds[0]
        command = ([URL(fileURLWithPath: executable).lastPathComponent] + arguments).joined(separator: " ")
    }

    deinit {
        stop()
        close(output)
    }

    /// The next line of the child's stdout, without its newline; nil at the end of the
    /// stream or past `timeout`.
    func readLine(timeout: Duration) -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return nil }
            var poller = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(clamping: left.inMilliseconds))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    /// Everything left on the child's stdout, up to the end of the stream.
    func readToEnd(timeout: Duration) -> String {
        var lines: [String] = []
        while let line = readLine(timeout: timeout) { lines.append(line) }
        return lines.joined(separator: "\n")
    }

    /// The child's CPU time so far (user and system, all threads), from `/proc/PID/stat`;
    /// nil once it has been reaped or where there is no /proc.
    var cpuSeconds: Double? {
        guard reaped == nil, let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/stat") else { return nil }
        defer { try? handle.close() }  // read-only: a failed close loses nothing
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        // Fields after the command name, which is in parentheses and may hold spaces.
        guard let end = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: end)...].split(separator: " ")
        // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after the name.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return ticks > 0 ? (user + system) / ticks : nil
    }

    /// The child's CPU time so far (every thread), to the nanosecond: its CPU-time clock
    /// (`clock_getcpuclockid`), where `cpuSeconds` counts 10 ms ticks. For figures of a
    /// process that mostly sleeps. Nil once reaped.
    var preciseCPUSeconds: Double? {
        guard reaped == nil else { return nil }
        var clock = clockid_t()
        var time = timespec()
        guard clock_getcpuclockid(pid, &clock) == 0, clock_gettime(clock, &time) == 0 else { return nil }
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The child's peak resident set (VmHWM) in bytes, from `/proc/PID/status`.
    var peakResidentBytes: Int? {
        guard reaped == nil else { return nil }
        return ProcessMemory.field("VmHWM:", file: "/proc/\(pid)/status")
    }

    /// Sends SIGTERM and waits up to `timeout` for the child to exit; SIGKILL past it.
    /// Returns the exit status (128 + signal for a signal).
    @discardableResult
    func stop(timeout: Duration = .seconds(5)) -> Int32 {
        if let reaped { return reaped }
        kill(pid, SIGTERM)
        return wait(timeout: timeout) ?? {
            kill(pid, SIGKILL)
            return wait(timeout: .seconds(5)) ?? -1
        }()
    }

    /// Waits up to `timeout` for the child to exit by itself; its exit status, or nil.
    func wait(timeout: Duration) -> Int32? {
        if let reaped { return reaped }
        let deadline = ContinuousClock.now + timeout
        while true {
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
                reaped = code
                return code
            }
            if result < 0 && errno != EINTR { return nil }
            if ContinuousClock.now >= deadline { return nil }
            usleep(5_000)  // a polling wait for a child's exit, on the benchmark's own thread
        }
    }

    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()
}
