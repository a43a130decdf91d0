import Foundation

/// Medians and percentiles for benchmark reports.
public enum BenchmarkStatistics {
    /// The median of the values (the mean of the middle two for an even count).
    public static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The value at `share` (0...1) of the sorted values (nearest rank).
    public static func percentile(_ sorted: [Double], _ share: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((share * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }
}

/// Reads this process's memory figures from `/proc/self/status`.
public enum ProcessMemory {
    /// Peak resident set size (VmHWM), in bytes.
    public static var peakResidentBytes: Int? { field("VmHWM:") }
    /// Current resident set size (VmRSS), in bytes.
    public static var residentBytes: Int? { field("VmRSS:") }

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

/// This process's CPU time (user and system, all threads), from `getrusage`: a steadier
/// measure of work than wall time on a machine shared with other loads.
public enum ProcessCPU {
    /// Seconds of CPU used so far.
    public static var seconds: Double {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        func value(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return value(usage.ru_utime) + value(usage.ru_stime)
    }
}
