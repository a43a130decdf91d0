import BeaconWire

/// A schema a rule holds, and the part of an event it describes: the whole event (a
/// Segment rule's), or one of its `properties`, `traits` and `context` (a Beacon plan's,
/// each a schema of its own, so its `$ref`s resolve inside it).
public struct EventSchema: Sendable {
    /// `nil`: the whole event; otherwise the event's field it checks.
    public var part: String?
    public var schema: JSONSchema

    public init(part: String?, schema: JSONSchema) {
        self.part = part
        self.schema = schema
    }

    /// Every way `event` (its parts filled in) fails, with paths in the event.
    func violations(of event: JSONValue) -> [SchemaViolation] {
        guard let part else { return schema.violations(of: event) }
        let prefix = "/" + JSONPointer.escape(part)
        return schema.violations(of: event.objectValue?[part] ?? .object([:])).map { violation in
            var violation = violation
            violation.instancePath = prefix + violation.instancePath
            return violation
        }
    }
}
