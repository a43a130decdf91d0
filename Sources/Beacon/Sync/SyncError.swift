/// Why a sync response was refused or could not be applied. A refused response changes
/// nothing: not the records, not the version token.
public enum SyncError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The response is not JSON (the reason is the parser's).
    case invalidJSON(reason: String)
    /// The response has no `version_token`, or an empty one.
    case missingVersionToken
    /// A value has the wrong type: `path` names it (`events`, `events[3].id`, `deleted.events`).
    case wrongType(path: String, expected: String, found: String)
    /// An item of a collection has no `id`.
    case missingID(path: String)
    /// The store failed while applying; the transaction was rolled back.
    case storage(StorageError)
    /// The response could not be fetched (network, HTTP status).
    case fetch(reason: String)
    /// A generic feed names a collection that only its own kind of feed may write (the
    /// remote configuration's `remote_config`, written only by a config feed).
    case reservedCollection(String)

    public var description: String {
        switch self {
        case .invalidJSON(let reason): return "the sync response is not valid JSON: \(reason)"
        case .missingVersionToken:
            return #"the sync response has no "version_token"; the server must send a non-empty string"#
        case .wrongType(let path, let expected, let found): return "\(path) must be \(expected), found \(found)"
        case .missingID(let path): return #"\#(path) has no "id" (a string or an integer)"#
        case .storage(let error): return "the sync could not be stored (nothing changed): \(error)"
        case .fetch(let reason): return "the sync response could not be fetched: \(reason)"
        case .reservedCollection(let name):
            return #"the sync response writes "\#(name)", which only a config feed ({"settings": {...}}) may change"#
        }
    }

    /// True when the response itself is at fault (bad input), false for storage or network.
    public var isBadInput: Bool {
        switch self {
        case .invalidJSON, .missingVersionToken, .wrongType, .missingID, .reservedCollection: return true
        case .storage, .fetch: return false
        }
    }
}
