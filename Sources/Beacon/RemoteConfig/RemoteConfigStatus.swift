import Foundation

/// Where remote configuration stands, for the dashboard and logs: the version applied,
/// when the last poll succeeded, the last error (cleared by the next success), the
/// configuration in force and what its filter dropped.
public struct RemoteConfigStatus: Sendable, Hashable {
    /// The version token applied (`nil` before any).
    public var version: String?
    /// When a poll last succeeded (wall clock).
    public var lastSync: Date?
    /// Why the last poll failed; `nil` when it succeeded.
    public var lastError: String?
    /// Polls that succeeded / failed since start.
    public var successes = 0
    public var failures = 0
    /// Polls that failed in a row (0 after a success).
    public var consecutiveFailures = 0
    /// What the feed reported as wrong on its side with its last answer (for example,
    /// the collector's config file is broken and it serves the last good version).
    public var feedWarning: String?
    /// The configuration in force (`nil` before any).
    public var config: RemoteConfig?
    /// Events dropped by the blocklist and by sampling since start.
    public var filtered = EventFilter.Counts()

    /// Creates a status.
    public init(version: String? = nil, lastSync: Date? = nil, lastError: String? = nil) {
        self.version = version
        self.lastSync = lastSync
        self.lastError = lastError
    }
}
