import BeaconWire

/// Settings a server may set remotely (the `settings` object of the config feed), checked.
/// Absent keys leave the engine's own setting in place.
///
/// ```json
/// {"batchSize": 50, "flushIntervalSeconds": 5, "flushAt": 100, "maxBatchBytes": 500000,
///  "maxEventBytes": 32000, "blocklist": ["Debug Event"], "sampling": {"Page Viewed": 0.5}}
/// ```
public struct RemoteConfig: Sendable, Hashable {
    /// Events per batch at most (≥ 1).
    public var batchSize: Int?
    /// Flush when this many events are queued (≥ 1).
    public var flushAt: Int?
    /// Flush at least this often, in seconds (> 0).
    public var flushIntervalSeconds: Double?
    /// Bytes per batch at most (≥ 1024).
    public var maxBatchBytes: Int?
    /// Bytes per event at most (≥ 1). Kept and reported; not applied live (see the status).
    public var maxEventBytes: Int?
    /// Event names dropped before queueing.
    public var blocklist: Set<String> = []
    /// Share of events kept (0...1), by name.
    public var sampling: [String: Double] = [:]

    /// The keys this engine understands (the wire contract's ``RemoteConfigKey``); others
    /// are ignored.
    public static let keys: Set<String> = RemoteConfigKey.names

    /// Creates a configuration.
    public init(
        batchSize: Int? = nil, flushAt: Int? = nil, flushIntervalSeconds: Double? = nil, maxBatchBytes: Int? = nil,
        maxEventBytes: Int? = nil, blocklist: Set<String> = [], sampling: [String: Double] = [:]
    ) {
        self.batchSize = batchSize
        self.flushAt = flushAt
        self.flushIntervalSeconds = flushIntervalSeconds
        self.maxBatchBytes = maxBatchBytes
        self.maxEventBytes = maxEventBytes
        self.blocklist = blocklist
        self.sampling = sampling
    }

    /// Checks a `settings` object against the wire contract's ranges
    /// (``RemoteConfigKey/check(settings:)``); a wrong type or range names the key, and
    /// nothing is taken.
    public init(settings: [String: JSONValue]) throws(SyncError) {
        do {
            try RemoteConfigKey.check(settings: settings)
        } catch {
            throw .wrongType(path: "settings.\(error.path)", expected: error.expected, found: error.found)
        }
        // Checked above: every value present is of its key's type and range.
        batchSize = settings[RemoteConfigKey.batchSize.rawValue]?.intValue
        flushAt = settings[RemoteConfigKey.flushAt.rawValue]?.intValue
        flushIntervalSeconds = settings[RemoteConfigKey.flushIntervalSeconds.rawValue]?.doubleValue
        maxBatchBytes = settings[RemoteConfigKey.maxBatchBytes.rawValue]?.intValue
        maxEventBytes = settings[RemoteConfigKey.maxEventBytes.rawValue]?.intValue
        if case .array(let names)? = settings[RemoteConfigKey.blocklist.rawValue] {
            blocklist = Set(names.compactMap(\.stringValue))
        }
        if case .object(let shares)? = settings[RemoteConfigKey.sampling.rawValue] {
            sampling = shares.compactMapValues(\.doubleValue)
        }
    }

    /// The keys of `settings` whose values pass their check, and the problems of the
    /// others: a store written by an older version may hold values this one refuses.
    public static func checkedSettings(_ settings: [String: JSONValue]) -> (valid: [String: JSONValue], problems: [RemoteConfigProblem]) {
        var valid: [String: JSONValue] = [:]
        var problems: [RemoteConfigProblem] = []
        for (name, value) in settings {
            guard let key = RemoteConfigKey(rawValue: name) else {
                valid[name] = value
                continue
            }
            do {
                try key.check(value)
                valid[name] = value
            } catch {
                problems.append(error)
            }
        }
        return (valid, problems.sorted { $0.path < $1.path })
    }

    /// The filter rules it sets.
    public var filterRules: EventFilter.Rules { EventFilter.Rules(blocklist: blocklist, sampling: sampling) }

    /// The flush policy it sets: `.any([.count(flushAt), .interval(flushIntervalSeconds)])`
    /// with the parts it has; `nil` when it has neither.
    public var policy: FlushPolicy? {
        var parts: [FlushPolicy] = []
        if let flushAt { parts.append(.count(flushAt)) }
        if let flushIntervalSeconds, let interval = Duration(checkedSeconds: flushIntervalSeconds) {
            parts.append(.interval(interval))
        }
        return parts.isEmpty ? nil : .any(parts)
    }

    /// Applies it over the engine's settings, key by key: a key whose value differs from
    /// the `previous` configuration's (every key present, when there is none) wins; a key
    /// the previous configuration set but this one no longer does goes back to
    /// `baseline`; a key that did not change leaves the setting alone, so a local change
    /// (the dashboard's `+`/`-`, `setPolicy`) lasts until the server changes that key.
    public func apply(to settings: inout EngineSettings, previous: RemoteConfig?, baseline: EngineSettings) {
        if let batchSize {
            if batchSize != previous?.batchSize { settings.batchSize = batchSize }
        } else if previous?.batchSize != nil {
            settings.batchSize = baseline.batchSize
        }
        if let maxBatchBytes {
            if maxBatchBytes != previous?.maxBatchBytes { settings.maxBatchBytes = maxBatchBytes }
        } else if previous?.maxBatchBytes != nil {
            settings.maxBatchBytes = baseline.maxBatchBytes
        }
        if let policy {
            if policy != previous?.policy { settings.policy = policy }
        } else if previous?.policy != nil {
            settings.policy = baseline.policy
        }
    }
}
