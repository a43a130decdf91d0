import ArgumentParser
import Beacon
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A failure the CLI reports in one line on stderr, with the exit code of the contract:
/// 1 for a runtime failure, 2 for bad usage or bad input.
struct CLIError: Error, CustomStringConvertible {
    var message: String
    var exitCode: Int32

    static func badInput(_ message: String) -> CLIError { CLIError(message: message, exitCode: 2) }
    static func runtime(_ message: String) -> CLIError { CLIError(message: message, exitCode: 1) }

    var description: String { message }
}

extension StorageError {
    /// Storage errors at open are the user's input (a wrong path, a file that is not a
    /// store) when the file cannot be opened; other storage failures are runtime ones.
    var cli: CLIError {
        switch kind {
        case .ioError, .other: return .badInput(description)
        default: return .runtime(description)
        }
    }
}
