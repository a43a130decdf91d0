import BeaconWire
/// Why `track` refused an event, or why waiting for its commit failed. Nothing is
/// enqueued when `track` throws.
public enum TrackingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The event name is empty.
    case emptyName
    /// The event name is longer than the limit.
    case nameTooLong(length: Int, limit: Int)
    /// The event name contains a control character (newline, tab, NUL...).
    case nameHasControlCharacter(name: String)
    /// `properties` (or `context`) is not a JSON object.
    case propertiesNotObject(field: String, found: String)
    /// A number is NaN or infinite, which JSON cannot carry.
    case nonFiniteNumber(path: String)
    /// Input bytes are not valid UTF-8.
    case invalidUTF8(offset: Int)
    /// Input bytes are not JSON.
    case invalidJSON(reason: String)
    /// Values nest deeper than the limit.
    case nestingTooDeep(path: String, limit: Int)
    /// The encoded event is larger than the per-event limit.
    case eventTooLarge(bytes: Int, limit: Int)
    /// A property key is empty.
    case emptyKey(path: String)
    /// A property key is longer than the limit.
    case keyTooLong(path: String, limit: Int)
    /// A string of the event breaks ``EventTextRule`` (a NUL character).
    case invalidText(path: String, problem: EventTextRule.Problem)
    /// `userId` or `anonymousId` is empty or too long.
    case invalidIdentity(field: String, reason: String)
    /// A required field of an NDJSON event is missing.
    case missingField(field: String, example: String)
    /// A field of an NDJSON event has the wrong type.
    case wrongType(field: String, expected: String, found: String)
    /// The event was accepted, but dropped from memory before it could be stored (the
    /// store was failing and the memory buffer overflowed).
    case droppedBeforeCommit
    /// The queue was closed before the event could be stored.
    case queueClosed

    public var description: String {
        switch self {
        case .emptyName:
            return "event name is empty: give the event a name such as 'Signed Up'"
        case .nameTooLong(let length, let limit):
            return "event name is \(length) characters long, over the limit of \(limit): shorten it"
        case .nameHasControlCharacter(let name):
            return "event name \(name.debugDescription) contains a control character: use printable characters only"
        case .propertiesNotObject(let field, let found):
            return "\(field) must be a JSON object, not \(found)"
        case .nonFiniteNumber(let path):
            return "\(path) is NaN or infinite, which JSON cannot carry: send a finite number or null"
        case .invalidUTF8(let offset):
            return "input is not valid UTF-8 (at byte \(offset)): re-encode it as UTF-8"
        case .invalidJSON(let reason):
            return "input is not valid JSON: \(reason)"
        case .nestingTooDeep(let path, let limit):
            return "\(path) nests deeper than \(limit) levels: flatten the properties"
        case .eventTooLarge(let bytes, let limit):
            return "event is \(bytes) bytes once encoded, over the limit of \(limit): send fewer or smaller properties"
        case .emptyKey(let path):
            return "\(path) has an empty property name: name every property"
        case .keyTooLong(let path, let limit):
            return "\(path) has a property name over \(limit) characters: shorten it"
        case .invalidText(let path, let problem):
            return "\(path) \(EventTextRule.explanation(problem))"
        case .invalidIdentity(let field, let reason):
            return "\(field) \(reason)"
        case .missingField(let field, let example):
            return "\(field) is missing: add it, e.g. \(example)"
        case .wrongType(let field, let expected, let found):
            return "\(field) must be \(expected), not \(found)"
        case .droppedBeforeCommit:
            return "event was dropped before it could be stored: the store was failing and the memory buffer overflowed"
        case .queueClosed:
            return "the queue was closed before the event could be stored"
        }
    }

    /// A stable short code per kind, for counters and JSON output.
    public var code: String {
        switch self {
        case .emptyName: return "empty_name"
        case .nameTooLong: return "name_too_long"
        case .nameHasControlCharacter: return "name_control_character"
        case .invalidText: return EventTextRule.rejectionCode
        case .propertiesNotObject: return "properties_not_object"
        case .nonFiniteNumber: return "non_finite_number"
        case .invalidUTF8: return "invalid_utf8"
        case .invalidJSON: return "invalid_json"
        case .nestingTooDeep: return "nesting_too_deep"
        case .eventTooLarge: return "event_too_large"
        case .emptyKey: return "empty_key"
        case .keyTooLong: return "key_too_long"
        case .invalidIdentity: return "invalid_identity"
        case .missingField: return "missing_field"
        case .wrongType: return "wrong_type"
        case .droppedBeforeCommit: return "dropped_before_commit"
        case .queueClosed: return "queue_closed"
        }
    }
}
