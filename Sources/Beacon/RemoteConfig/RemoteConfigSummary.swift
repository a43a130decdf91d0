import BeaconWire
import Foundation

/// Remote configuration as the dashboard shows it, carried in ``EngineSnapshot/remoteConfig``:
/// the version in force, when a poll last succeeded, why the last poll failed, and what
/// the feed said is wrong on its side. Times are ``Timestamp``s so a renderer needs no
/// Foundation.
///
/// A ``RemoteConfigSyncer`` given an observer reports one whenever its status changes.
public struct RemoteConfigSummary: Sendable, Hashable {
    /// The version token in force (`nil` before any).
    public var version: String?
    /// When a poll last succeeded (wall clock).
    public var lastSync: Timestamp?
    /// Why the last poll failed; `nil` when it succeeded.
    public var lastError: String?
    /// What the feed reported as wrong on its side while answering (for example, the
    /// collector's config file is broken and it serves the last good version); `nil`
    /// when nothing.
    public var feedWarning: String?
    /// Polls that failed in a row (0 after a success).
    public var consecutiveFailures: Int
    /// Time between polls, when polling on an interval.
    public var interval: Duration?
    /// Events the blocklist and sampling dropped, as of the last status change.
    public var filtered: EventFilter.Counts

    /// Creates a summary.
    public init(
        version: String? = nil, lastSync: Timestamp? = nil, lastError: String? = nil, feedWarning: String? = nil,
        consecutiveFailures: Int = 0, interval: Duration? = nil, filtered: EventFilter.Counts = EventFilter.Counts()
    ) {
        self.version = version
        self.lastSync = lastSync
        self.lastError = lastError
        self.feedWarning = feedWarning
        self.consecutiveFailures = consecutiveFailures
        self.interval = interval
        self.filtered = filtered
    }

    /// The summary of a syncer's status.
    public init(_ status: RemoteConfigStatus, interval: Duration?) {
        self.init(
            version: status.version,
            lastSync: status.lastSync.map { Timestamp(millisecondsSince1970: Int64(saturating: ($0.timeIntervalSince1970 * 1000).rounded())) },
            lastError: status.lastError, feedWarning: status.feedWarning, consecutiveFailures: status.consecutiveFailures,
            interval: interval, filtered: status.filtered)
    }
}
