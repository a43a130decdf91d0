import Logging
#if canImport(Glibc)
import Glibc
#endif

/// The descriptors a server process may open, and the connection cap that fits them.
///
/// A server that accepts more connections than it has descriptors meets `EMFILE` on
/// `accept`: the client hears nothing, and the kernel keeps offering the connection. So,
/// as servers usually do, the process raises its soft limit to the hard one at start,
/// and the cap on open connections leaves ``reserve`` descriptors for the store, its
/// log, outgoing connections, the control channel and one refusal at a time: over the
/// cap, a client gets `503 too_many_connections` instead of silence.
enum DescriptorLimit {
    /// Descriptors kept for everything but client connections.
    static let reserve = 128

    /// Raises the soft `RLIMIT_NOFILE` to the hard one when it is lower; returns the soft
    /// limit in force (nil when it cannot be read).
    static func raiseToHard() -> Int? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)  // RLIM_INFINITY is the largest value: clamped to Int.max
    }

    /// `configured`, lowered to what `descriptors` leave for client connections (at least 1).
    static func fit(_ configured: Int, descriptors: Int) -> Int {
        let (room, overflow) = descriptors.subtractingReportingOverflow(reserve)
        return max(1, min(configured, overflow ? configured : room))
    }

    /// Raises the limit and fits `configured` to it, saying so in the log when it lowers it.
    static func connectionCap(_ configured: Int, logger: Logger) -> Int {
        guard let descriptors = raiseToHard() else { return configured }
        let cap = fit(configured, descriptors: descriptors)
        if cap < configured {
            logger.notice(
                "fewer descriptors than connections: the connection cap is lowered to fit them; raise the hard limit (ulimit -Hn) for more",
                metadata: ["max_connections": "\(cap)", "asked": "\(configured)", "descriptors": "\(descriptors)"])
        }
        return cap
    }
}
