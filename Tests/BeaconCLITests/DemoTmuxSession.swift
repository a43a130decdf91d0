import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A private tmux server (its own `-L` socket) running one command in a pane of a given
/// size: the pseudo-terminal the dashboard tests drive with keys and read back as text.
///
/// The command runs under `sh`; when it ends, its exit status is written to
/// ``statusFile`` and the pane stays open (a shell `sleep`), so a test can check both the
/// status and what the terminal was left showing.
final class TmuxSession {
    let socket = "beacon-test-\(UUID().uuidString.prefix(8))"
    let statusFile: String
    private static let target = "main"

    /// Whether `tmux` is on the `PATH`.
    static var isInstalled: Bool {
        (try? run(["tmux", "-V"]).status == 0) ?? false  // not found: the caller skips
    }

    /// Starts `arguments` (the first is the executable) in a detached `width`x`height` pane.
    init(_ arguments: [String], width: Int, height: Int, directory: String) throws {
        statusFile = directory + "/exit-status"
        let quoted = arguments.map(Self.shellQuoted).joined(separator: " ")
        let script = "LANG=C.UTF-8 LC_ALL=C.UTF-8 \(quoted); echo $? > \(Self.shellQuoted(statusFile)); echo '[beacon exited]'; sleep 120"
        try tmux(["-f", "/dev/null", "new-session", "-d", "-s", Self.target, "-x", "\(width)", "-y", "\(height)", script])
    }

    deinit {
        kill()
    }

    /// Whether the server still answers.
    var isServerRunning: Bool {
        (try? Self.run(["tmux", "-L", socket, "list-sessions"]).status == 0) ?? false  // cannot run tmux: not running
    }

    /// Stops the server and everything in it.
    func kill() {
        _ = try? Self.run(["tmux", "-L", socket, "kill-server"])  // already gone is fine
    }

    /// Presses tmux key names (`o`, `Enter`, `Escape`); `literal` sends the text as typed.
    func press(_ keys: String..., literal: Bool = false) throws {
        try tmux(["send-keys", "-t", Self.target] + (literal ? ["-l"] : []) + keys)
    }

    /// The pane's visible text.
    func capture() throws -> String {
        try tmux(["capture-pane", "-p", "-t", Self.target])
    }

    /// Resizes the window (and so the pane).
    func resize(width: Int, height: Int) throws {
        try tmux(["resize-window", "-t", Self.target, "-x", "\(width)", "-y", "\(height)"])
    }

    /// A tmux format of the pane, e.g. `#{alternate_on}`.
    func display(_ format: String) throws -> String {
        try tmux(["display-message", "-p", "-t", Self.target, format]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Polls the pane every 100 ms until `condition` holds on its text; throws with the
    /// last capture after `timeout`.
    @discardableResult
    func waitForScreen(
        _ what: String, timeout: Duration = .seconds(15), _ condition: (String) -> Bool
    ) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        var last = ""
        while ContinuousClock.now < deadline {
            last = try capture()
            if condition(last) { return last }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TmuxError("timed out after \(timeout) waiting for \(what); the pane showed:\n\(last)")
    }

    /// Polls for the command's exit status (written when it ends); throws after `timeout`.
    func waitForExit(timeout: Duration = .seconds(15)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let text = try? String(contentsOfFile: statusFile, encoding: .utf8),  // not written yet
               let status = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                return status
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TmuxError("the command did not exit within \(timeout); the pane showed:\n\((try? capture()) ?? "")")
    }

    @discardableResult
    private func tmux(_ arguments: [String]) throws -> String {
        let result = try Self.run(["tmux", "-u", "-L", socket] + arguments)
        guard result.status == 0 else {
            throw TmuxError("tmux \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.output)")
        }
        return result.output
    }

    /// Runs a tmux client to completion with `posix_spawn` and `waitpid`. Its output goes
    /// to a file, not a pipe: the server the first client forks inherits the client's
    /// descriptors and would hold a pipe open for as long as it lives. (Foundation's
    /// `Process` did not notice these clients exit: they stayed zombies.)
    private static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("beacon-tmux-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }  // best effort: a temp file
        let pid = try spawn("/usr/bin/env", arguments) { actions in
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""  // no output written
        return (exitStatus, text)
    }

    private static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// A tmux step that failed, with what the pane showed.
struct TmuxError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Reading the dashboard's text.
enum DashboardText {
    /// The number on the queue panel's `depth` row, if shown.
    static func depth(in screen: String) -> Int? {
        value(of: "depth", in: screen)
    }

    /// The number after `label` on the queue panel (`│ depth   25`).
    static func value(of label: String, in screen: String) -> Int? {
        for line in screen.split(separator: "\n") {
            guard let range = line.range(of: "│ \(label) ") else { continue }
            let rest = Self.afterSparkline(line[range.upperBound...])
            let digits = rest.prefix { $0.isNumber || $0 == "," }.filter(\.isNumber)
            if let number = Int(digits) { return number }
        }
        return nil
    }

    /// What follows a queue-panel label past the last minutes' sparkline (`█▁▁▁  0/s`), when
    /// the width leaves room for one.
    static func afterSparkline(_ text: Substring) -> Substring {
        let bars: Set<Character> = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█", " "]
        return text.drop { bars.contains($0) }
    }

    /// The depth on a destination's row (` backup      0  idle ...`), if shown.
    static func destinationDepth(_ name: String, in screen: String) -> Int? {
        for line in screen.split(separator: "\n") {
            let fields = line.split(separator: " ")
            // `▸` marks the destination `P` acts on.
            guard fields.count >= 2, fields[0] == name || fields[0] == "▸" + name else { continue }
            if let number = Int(fields[1].filter(\.isNumber)), fields[1].allSatisfy({ $0.isNumber || $0 == "," }) { return number }
        }
        return nil
    }

    /// A rate as the dashboard shows it (`0/s`, `4.2/s`, `815/s`, `12.3k/s`), as a number.
    static func rate(_ text: Substring) -> Double? {
        guard text.hasSuffix("/s") else { return nil }
        var number = text.dropLast(2)
        var scale = 1.0
        if let unit = number.last, unit == "k" || unit == "M" {
            scale = unit == "k" ? 1_000 : 1_000_000
            number = number.dropLast()
        }
        return Double(number).map { $0 * scale }
    }

    /// The rate after `label` on the queue panel (`│ out      815/s`), if shown.
    static func rate(of label: String, in screen: String) -> Double? {
        for line in screen.split(separator: "\n") {
            guard let range = line.range(of: "│ \(label) ") else { continue }
            if let token = Self.afterSparkline(line[range.upperBound...]).split(separator: " ").first, let value = rate(token) { return value }
        }
        return nil
    }

    /// The rate on a destination's row, after its depth (blank, so `nil`, when unknown).
    static func destinationRate(_ name: String, in screen: String) -> Double? {
        for line in screen.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 3, fields[0] == name || fields[0] == "▸" + name else { continue }
            return rate(fields[2])
        }
        return nil
    }

    /// The first line (the header).
    static func header(_ screen: String) -> String {
        String(screen.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
    }
}
