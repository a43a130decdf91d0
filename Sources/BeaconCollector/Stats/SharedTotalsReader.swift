import Synchronization

/// Reads the store's shared totals for `GET /v1/stats` and `GET /metrics`, reusing one
/// reading for up to ``maxAge`` so that scrapers and dashboards polling many collectors
/// cost the database at most one small query per collector per second.
final class SharedTotalsReader: Sendable {
    /// A reading, or why there is none now.
    struct Reading: Sendable, Hashable {
        /// The latest totals read (with their age), or `nil` if none could be read yet.
        var totals: StoreTotals?
        /// Why the database could not be read just now, or `nil` when `totals` is fresh.
        var problem: String?
    }

    private struct Cached {
        var totals: StoreTotals
        var at: ContinuousClock.Instant
    }

    private let store: any CollectorStore
    private let maxAge: Duration
    private let timeout: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private let cached = Mutex<Cached?>(nil)

    /// A reader of `store` whose readings last `maxAge`; a read taking longer than `timeout`
    /// is given up (the stats answer at once rather than wait for a database that is down).
    init(
        store: any CollectorStore, maxAge: Duration = .seconds(1), timeout: Duration = .seconds(1),
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.store = store
        self.maxAge = maxAge
        self.timeout = timeout
        self.now = now
    }

    /// The totals: the cached reading while it is younger than ``maxAge``, a new one otherwise.
    func read() async -> Reading {
        let start = now()
        if let recent = cached.withLock({ $0 }), start - recent.at < maxAge {
            return Reading(totals: aged(recent, at: start), problem: nil)
        }
        do {
            let totals = try await withDeadline(timeout) { [store] in try await store.totals() }
            cached.withLock { $0 = Cached(totals: totals, at: start) }
            return Reading(totals: totals, problem: nil)
        } catch {
            let problem: String
            switch error {
            case let error as StoreUnavailableError: problem = error.reason
            case is DeadlineExceeded: problem = "the store did not answer within \(timeout.inSeconds) s"
            default: problem = "\(error)"  // PostgreSQL's errors describe themselves without credentials
            }
            return Reading(totals: cached.withLock { $0 }.map { aged($0, at: now()) }, problem: problem)
        }
    }

    private func aged(_ cached: Cached, at instant: ContinuousClock.Instant) -> StoreTotals {
        var totals = cached.totals
        totals.ageSeconds = (instant - cached.at).inSeconds
        return totals
    }
}
