import Foundation

/// Reads this process's memory figures from `/proc/self/status` and `/proc/self/statm`.
enum ProcessMemory {
    /// Peak resident set size (VmHWM), in bytes.
    static var peakResidentBytes: Int? { field("VmHWM:") }
    /// Current resident set size (VmRSS), in bytes.
    static var residentBytes: Int? { field("VmRSS:") }

    /// A `kB` field of a `/proc/.../status` file, in bytes.
    static func field(_ name: String, file: String = "/proc/self/status") -> Int? {
        // /proc files report a size of 0, so read the handle to its end.
        guard let handle = FileHandle(forReadingAtPath: file) else {
            return nil  // not Linux, or the process is gone: the figure is simply unavailable
        }
        defer { try? handle.close() }  // read-only: a failed close loses nothing
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            let digits = line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) }
            return digits.map { $0 * 1024 }
        }
        return nil
    }
}
