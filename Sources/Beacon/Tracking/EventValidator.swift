import BeaconWire

/// The checks `track` runs before an event may enter the queue, and their limits.
public struct EventValidator: Sendable, Hashable {
    /// Longest event name, in characters. Default 200.
    public var maxNameLength: Int = 200
    /// Longest property name, in characters. Default 255.
    public var maxKeyLength: Int = 255
    /// Deepest nesting of arrays and objects inside `properties`. Default 32.
    public var maxDepth: Int = 32
    /// Largest encoded event, in bytes. Default 32 KB, the collector's limit.
    public var maxEventBytes: Int = WireLimits.maxEventBytes
    /// Longest `userId` / `anonymousId`. Default 512.
    public var maxIdentityLength: Int = 512

    public init() {}

    /// Checks the name, the properties and context, and the identities.
    public func validate(
        name: String, properties: [String: JSONValue], context: [String: JSONValue]?, userId: String?,
        anonymousId: String?
    ) throws(TrackingError) {
        try validate(name: name)
        try validate(members: properties, path: "properties", depth: 1)
        if let context { try validate(members: context, path: "context", depth: 1) }
        try validate(identity: userId, field: "userId")
        try validate(identity: anonymousId, field: "anonymousId")
    }

    /// Checks the size of the encoded event.
    public func validate(encodedBytes: Int) throws(TrackingError) {
        if encodedBytes > maxEventBytes { throw .eventTooLarge(bytes: encodedBytes, limit: maxEventBytes) }
    }

    func validate(name: String) throws(TrackingError) {
        if name.isEmpty { throw .emptyName }
        var count = 0
        for scalar in name.unicodeScalars {
            count += 1
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                throw .nameHasControlCharacter(name: name)
            }
        }
        if count > maxNameLength { throw .nameTooLong(length: count, limit: maxNameLength) }
    }

    func validate(identity: String?, field: String) throws(TrackingError) {
        guard let identity else { return }
        if identity.isEmpty { throw .invalidIdentity(field: field, reason: "is empty: leave it out instead") }
        if let problem = EventTextRule.problem(in: identity) { throw .invalidText(path: field, problem: problem) }
        if identity.utf8.count > maxIdentityLength, identity.unicodeScalars.count > maxIdentityLength {
            throw .invalidIdentity(field: field, reason: "is longer than \(maxIdentityLength) characters")
        }
    }

    func validate(members: [String: JSONValue], path: String, depth: Int) throws(TrackingError) {
        if depth > maxDepth { throw .nestingTooDeep(path: path, limit: maxDepth) }
        for (key, value) in members {
            if key.isEmpty { throw .emptyKey(path: path) }
            if let problem = EventTextRule.problem(in: key) { throw .invalidText(path: "a property name in \(path)", problem: problem) }
            if key.utf8.count > maxKeyLength, key.unicodeScalars.count > maxKeyLength {
                throw .keyTooLong(path: path, limit: maxKeyLength)
            }
            // The path is spelled out only for values that may fail: most are flat scalars.
            if Self.isValidScalar(value) { continue }
            try validate(value: value, path: "\(path).\(key)", depth: depth)
        }
    }

    /// Whether `value` is a scalar that passes every check (anything but a non-finite
    /// number or a string that breaks ``EventTextRule``); `false` for arrays and objects,
    /// which need their own checks.
    private static func isValidScalar(_ value: JSONValue) -> Bool {
        switch value {
        case .null, .bool, .int: true
        case .string(let text): EventTextRule.problem(in: text) == nil
        case .double(let number): number.isFinite
        case .array, .object: false
        }
    }

    func validate(value: JSONValue, path: String, depth: Int) throws(TrackingError) {
        switch value {
        case .double(let number):
            if !number.isFinite { throw .nonFiniteNumber(path: path) }
        case .string(let text):
            if let problem = EventTextRule.problem(in: text) { throw .invalidText(path: path, problem: problem) }
        case .object(let members):
            try validate(members: members, path: path, depth: depth + 1)
        case .array(let elements):
            if depth + 1 > maxDepth { throw .nestingTooDeep(path: path, limit: maxDepth) }
            for (index, element) in elements.enumerated() where !Self.isValidScalar(element) {
                try validate(value: element, path: "\(path)[\(index)]", depth: depth + 1)
            }
        case .null, .bool, .int:
            break
        }
    }
}
