/// Why a schema could not be compiled: where in it (a JSON Pointer) and what is wrong. A
/// keyword Beacon does not check is an error, never silently ignored, so that a plan never
/// seems to enforce a rule it does not.
public struct SchemaError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: Sendable, Hashable {
        /// A keyword Beacon does not check (`unevaluatedProperties`, `$dynamicRef`, …).
        case unsupportedKeyword(String)
        /// A keyword whose value is not what the draft allows (a negative `minLength`…).
        case invalidValue(keyword: String, expected: String)
        /// A `$ref` that does not point into the same schema, or to nothing there.
        case unresolvedReference(String)
        /// A `pattern` that does not compile, or could take unbounded time.
        case invalidPattern(String, reason: String)
        /// Subschemas nested deeper than ``JSONSchema/maxDepth``.
        case tooDeep
    }

    /// Where in the schema, as a JSON Pointer (`""`: the root).
    public var path: String
    public var reason: Reason

    public init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    public var description: String {
        "\(path.isEmpty ? "at the schema's root" : "at \(path)"): \(explanation)"
    }

    /// What is wrong, without where.
    public var explanation: String {
        switch reason {
        case .unsupportedKeyword(let keyword): return "the keyword \"\(keyword)\" is not supported (docs/plans.md lists those that are)"
        case .invalidValue(let keyword, let expected): return "\"\(keyword)\" must be \(expected)"
        case .unresolvedReference(let reference): return "$ref \"\(reference)\" does not point into this schema"
        case .invalidPattern(let pattern, let reason): return "the pattern \"\(pattern)\" \(reason)"
        case .tooDeep: return "subschemas nest deeper than \(JSONSchema.maxDepth)"
        }
    }
}
