import Foundation

/// Runs the `beacon` executable built next to the tests.
enum BeaconProcess {
    /// The executable: beside the test bundle (`.build/<config>/beacon`).
    static let path: String = {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        var candidates = [bundle.appendingPathComponent("beacon").path]
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug/beacon").path)
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
    }()

    struct Result {
        var status: Int32
        /// Ended by a signal (a trap, or the watchdog), not by exit().
        var signalled = false
        var stdout: String
        var stderr: String
    }

    /// Runs to completion with the given standard input, on a thread of its own (see
    /// ``offThePool(_:)``).
    static func run(_ arguments: [String], stdin: String? = nil) async throws -> Result {
        try await offThePool { try runBlocking(arguments, stdin: stdin.map { Data($0.utf8) }) }
    }

    /// Runs with raw bytes on standard input (which a `String` could not hold), through
    /// `executable` (default: beacon), killed with SIGKILL if still running after `limit`.
    static func run(
        _ arguments: [String], stdinBytes: Data?, executable: String = path, limit: Duration = .seconds(60)
    ) async throws -> Result {
        try await offThePool { try runBlocking(arguments, stdin: stdinBytes, executable: executable, limit: limit) }
    }

    private static func runBlocking(
        _ arguments: [String], stdin: Data?, executable: String = path, limit: Duration = .seconds(60)
    ) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        try process.run()
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem { if process.isRunning { kill(pid, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(limit.components.seconds * 1000)), execute: watchdog)
        defer { watchdog.cancel() }
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        let outData = PipeReader.all(out.fileHandleForReading)
        let errData = PipeReader.all(err.fileHandleForReading)
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    /// A fresh temporary directory.
    static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("beacon-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

/// Runs blocking work (waiting for a process, reading a pipe to its end) on a thread of
/// its own. Tests run on Swift's cooperative pool, as wide as the core count (2 here):
/// two tests blocking it stall every other test's async work, timers included.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Swift.Result { try body() }) }
    }
}
