/// One way an event breaks its tracking plan: its kind (which the plan's policy acts on and
/// the metrics count), where in the event, and why.
///
/// ```swift
/// PlanViolation(kind: .invalid, path: "/properties/price", keyword: "type", message: "expected number, got string")
/// PlanViolation(kind: .unplannedProperty, path: "/properties/colour", keyword: nil, message: "not in the plan")
/// ```
public struct PlanViolation: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// No rule plans the event.
        case unplannedEvent = "unplanned_event"
        /// A property (or trait) its rule does not name.
        case unplannedProperty = "unplanned_property"
        /// A value fails the rule's schema or the common one.
        case invalid
    }

    public var kind: Kind
    /// Where in the event, as a JSON Pointer (`/properties/products/0/price`); `""`: the event.
    public var path: String
    /// The schema keyword that failed, for ``Kind/invalid``.
    public var keyword: String?
    public var message: String

    public init(kind: Kind, path: String, keyword: String?, message: String) {
        self.kind = kind
        self.path = path
        self.keyword = keyword
        self.message = message
    }

    init(_ violation: SchemaViolation) {
        self.init(kind: .invalid, path: violation.instancePath, keyword: violation.keyword, message: violation.message)
    }

    /// `/properties/price: expected number, got string (type)`.
    public var description: String {
        "\(path.isEmpty ? "(the event)" : path): \(message)\(keyword.map { " (\($0))" } ?? "")"
    }
}
