import BeaconSimulation
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where a run keeps its stores, logs and ids: a directory the user names (new or empty),
/// or a temporary one removed after a pass.
struct SimulationDirectory {
    let path: String
    let isTemporary: Bool

    /// Makes or checks the directory.
    ///
    /// - Throws: ``CLIError`` (bad input) when `given` is a file or a directory with files in it.
    static func prepare(_ given: String?) throws(CLIError) -> SimulationDirectory {
        let manager = FileManager.default
        guard let given else {
            let path = NSTemporaryDirectory() + "beacon-simulate-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))"
            do {
                try manager.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw .runtime("cannot make a directory for the run at \(path): \(error.localizedDescription)")
            }
            return SimulationDirectory(path: path, isTemporary: true)
        }
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: given, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw .badInput("--dir \(given) is a file; give a new or empty directory") }
            let entries: [String]
            do {
                entries = try manager.contentsOfDirectory(atPath: given)
            } catch {
                // Writable but not listable: empty or not is unknown, so it is not used.
                throw .badInput("--dir \(given): cannot list it (\(error.localizedDescription)); give a new or empty directory")
            }
            guard entries.isEmpty else {
                throw .badInput("--dir \(given) is not empty; give a new or empty directory (a run never mixes its stores with another's)")
            }
        } else {
            do {
                try manager.createDirectory(atPath: given, withIntermediateDirectories: true)
            } catch {
                throw .badInput("--dir \(given): cannot create it: \(error.localizedDescription)")
            }
        }
        // Claimed with O_EXCL: two runs that both found it empty cannot both use it.
        let claim = open("\(given)/simulate.claim", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard claim >= 0 else {
            let reason = errno == EEXIST ? "another beacon simulate run took it first" : String(cString: strerror(errno))
            throw .badInput("--dir \(given): \(reason); give a new or empty directory")
        }
        close(claim)
        return SimulationDirectory(path: given, isTemporary: false)
    }

    /// Writes the report (`report.json`) beside the stores.
    static func record(_ report: SimulationReport, in path: String) throws(CLIError) {
        try OutputFile.write(Array(try json(report).utf8), to: "\(path)/report.json")
    }

    /// A report (or a comparison) as pretty JSON with sorted keys.
    static func json(_ report: some Encodable) throws(CLIError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        do {
            return String(decoding: try encoder.encode(report), as: UTF8.self)
        } catch {
            throw .runtime("cannot encode the report: \(error)")
        }
    }

    /// Removes a temporary directory (after a pass).
    func removeIfTemporary() {
        guard isTemporary else { return }
        // A leftover temporary directory is harmless; nothing to report.
        try? FileManager.default.removeItem(atPath: path)
    }
}
