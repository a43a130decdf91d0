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

    /// Checks a `settings` object; a wrong type or range names the key.
    public init(settings: [String: JSONValue]) throws(SyncError) {
        batchSize = try Self.integer(settings, "batchSize", atLeast: 1)
        flushAt = try Self.integer(settings, "flushAt", atLeast: 1)
        maxBatchBytes = try Self.integer(settings, "maxBatchBytes", atLeast: 1024)
        maxEventBytes = try Self.integer(settings, "maxEventBytes", atLeast: 1)
        switch settings["flushIntervalSeconds"] {
        case nil, .null?: break
        case let value?:
            guard let seconds = value.doubleValue, seconds > 0, seconds.isFinite else {
                throw .wrongType(path: "settings.flushIntervalSeconds", expected: "a number of seconds above 0", found: value.shortText)
            }
            flushIntervalSeconds = seconds
        }
        switch settings["blocklist"] {
        case nil, .null?: break
        case .array(let names)?:
            for (index, name) in names.enumerated() {
                guard case .string(let text) = name else {
                    throw .wrongType(path: "settings.blocklist[\(index)]", expected: "an event name (string)", found: name.typeName)
                }
                blocklist.insert(text)
            }
        case let other?: throw .wrongType(path: "settings.blocklist", expected: "an array of event names", found: other.typeName)
        }
        switch settings["sampling"] {
        case nil, .null?: break
        case .object(let rates)?:
            for (name, rate) in rates {
                guard let share = rate.doubleValue, (0...1).contains(share) else {
                    throw .wrongType(path: "settings.sampling.\(name)", expected: "a share from 0 to 1", found: rate.shortText)
                }
                sampling[name] = share
            }
        case let other?: throw .wrongType(path: "settings.sampling", expected: "an object of event name → share", found: other.typeName)
        }
    }

    private static func integer(_ settings: [String: JSONValue], _ key: String, atLeast minimum: Int) throws(SyncError) -> Int? {
        switch settings[key] {
        case nil, .null?: return nil
        case let value?:
            guard let number = value.intValue, number >= minimum else {
                throw .wrongType(path: "settings.\(key)", expected: "an integer of at least \(minimum)", found: value.shortText)
            }
            return number
        }
    }

    /// The filter rules it sets.
    public var filterRules: EventFilter.Rules { EventFilter.Rules(blocklist: blocklist, sampling: sampling) }

    /// The flush policy it sets: `.any([.count(flushAt), .interval(flushIntervalSeconds)])`
    /// with the parts it has; `nil` when it has neither.
    public var policy: FlushPolicy? {
        var parts: [FlushPolicy] = []
        if let flushAt { parts.append(.count(flushAt)) }
        if let flushIntervalSeconds { parts.append(.interval(.milliseconds(Int((flushIntervalSeconds * 1000).rounded())))) }
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

extension JSONValue {
    /// Short text of a value for error messages.
    fileprivate var shortText: String {
        switch self {
        case .string(let text): return "\"\(text)\""
        case .int(let number): return String(number)
        case .double(let number): return String(number)
        case .bool(let flag): return String(flag)
        case .null: return "null"
        case .array, .object: return typeName
        }
    }
}
