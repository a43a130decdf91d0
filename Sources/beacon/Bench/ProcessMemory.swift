import Foundation

/// Reads this process's memory figures from `/proc/self/status`.
enum ProcessMemory {
    /// Peak resident set size (VmHWM), in bytes.
    static var peakResidentBytes: Int? { field("VmHWM:") }
    /// Current resident set size (VmRSS), in bytes.
    static var residentBytes: Int? { field("VmRSS:") }

    private static func field(_ name: String) -> Int? {
        // /proc files report a size of 0, so read the handle to its end.
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/status") else {
            return nil  // not Linux: the figure is simply unavailable
        }
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            let digits = line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) }
            return digits.map { $0 * 1024 }
        }
        return nil
    }
}
