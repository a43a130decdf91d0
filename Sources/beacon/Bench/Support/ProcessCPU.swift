import Foundation

/// This process's CPU time (user and system, all threads), from `getrusage`: a steadier
/// measure of work than wall time on a machine shared with other loads.
enum ProcessCPU {
    /// Seconds of CPU used so far.
    static var seconds: Double {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        func value(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return value(usage.ru_utime) + value(usage.ru_stime)
    }
}
