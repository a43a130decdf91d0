/// The range of every key, checked the same way by the collector (when it reads its
/// config file) and by the engine (before it stores a feed). Values from a feed are
/// outside input: every bound here keeps a number far from where converting it to a
/// `Duration` or an `Int` could trap, and keeps lists small enough to apply at once.
extension RemoteConfigKey {
    /// The largest `batchSize`.
    public static let maximumBatchSize = 100_000
    /// The largest `flushAt`.
    public static let maximumFlushAt = 100_000_000
    /// The longest `flushIntervalSeconds`: one week.
    public static let maximumFlushIntervalSeconds = 7 * 86_400
    /// The largest `maxBatchBytes` and `maxEventBytes`: 1 GiB.
    public static let maximumBytes = 1 << 30
    /// The most names in `blocklist` or `sampling`.
    public static let maximumNames = 10_000
    /// The longest event name in `blocklist` or `sampling`, in UTF-8 bytes.
    public static let maximumNameBytes = 1_000

    /// What a value of this key must be, for error messages.
    public var expectation: String {
        switch self {
        case .batchSize: return "an integer from 1 to \(Self.maximumBatchSize)"
        case .flushAt: return "an integer from 1 to \(Self.maximumFlushAt)"
        case .flushIntervalSeconds: return "a number of seconds above 0 and at most \(Self.maximumFlushIntervalSeconds)"
        case .maxBatchBytes: return "an integer from 1024 to \(Self.maximumBytes)"
        case .maxEventBytes: return "an integer from 1 to \(Self.maximumBytes)"
        case .blocklist: return "an array of at most \(Self.maximumNames) event names"
        case .sampling: return "an object of at most \(Self.maximumNames) event name → share from 0 to 1"
        }
    }

    /// Checks `value` for this key; `null` means "not set" and passes.
    public func check(_ value: JSONValue) throws(RemoteConfigProblem) {
        if case .null = value { return }
        let refuse = { (path: String, expected: String, found: JSONValue) in
            RemoteConfigProblem(path: path, expected: expected, found: found.shortDescription)
        }
        switch self {
        case .batchSize: try integer(value, in: 1...Self.maximumBatchSize)
        case .flushAt: try integer(value, in: 1...Self.maximumFlushAt)
        case .maxBatchBytes: try integer(value, in: 1024...Self.maximumBytes)
        case .maxEventBytes: try integer(value, in: 1...Self.maximumBytes)
        case .flushIntervalSeconds:
            guard let seconds = value.doubleValue, seconds.isFinite, seconds > 0, seconds <= Double(Self.maximumFlushIntervalSeconds) else {
                throw refuse(rawValue, expectation, value)
            }
        case .blocklist:
            guard case .array(let names) = value, names.count <= Self.maximumNames else { throw refuse(rawValue, expectation, value) }
            for (index, name) in names.enumerated() {
                guard case .string(let text) = name, Self.isEventName(text) else {
                    throw refuse("\(rawValue)[\(index)]", "an event name (a string of 1 to \(Self.maximumNameBytes) bytes)", name)
                }
            }
        case .sampling:
            guard case .object(let shares) = value, shares.count <= Self.maximumNames else { throw refuse(rawValue, expectation, value) }
            for (name, share) in shares {
                guard Self.isEventName(name) else {
                    throw refuse(rawValue, "an object keyed by event names of 1 to \(Self.maximumNameBytes) bytes", .string(name))
                }
                guard let number = share.doubleValue, (0...1).contains(number) else {
                    throw refuse("\(rawValue).\(name)", "a share from 0 to 1", share)
                }
            }
        }
    }

    /// Checks every key this contract knows in a `settings` object; unknown keys are left
    /// alone (newer servers may send more).
    public static func check(settings: [String: JSONValue]) throws(RemoteConfigProblem) {
        for key in allCases.sorted() {
            if let value = settings[key.rawValue] { try key.check(value) }
        }
    }

    private func integer(_ value: JSONValue, in range: ClosedRange<Int>) throws(RemoteConfigProblem) {
        guard let number = value.intValue, range.contains(number) else {
            throw RemoteConfigProblem(path: rawValue, expected: expectation, found: value.shortDescription)
        }
    }

    private static func isEventName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= maximumNameBytes
    }
}

extension JSONValue {
    /// The value in a few characters, for error messages: strings quoted and cut, numbers
    /// as written, containers by their type and size.
    public var shortDescription: String {
        switch self {
        case .string(let text):
            let shown = text.unicodeScalars.count > 40 ? String(String.UnicodeScalarView(text.unicodeScalars.prefix(40))) + "…" : text
            return "\"\(shown)\""
        case .int(let number): return String(number)
        case .double(let number): return String(number)
        case .bool(let flag): return String(flag)
        case .null: return "null"
        case .array(let items): return "an array of \(items.count)"
        case .object(let members): return "an object of \(members.count)"
        }
    }
}
