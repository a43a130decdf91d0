import BeaconPlan
import BeaconWire

/// An order's properties checked against a schema compiled once: every way they fail.
func orderViolations(_ properties: JSONValue) throws -> [String] {
    let schema = try JSONSchema(
        ["type": "object", "required": ["order_id"], "properties": ["price": ["type": "number", "minimum": 0]]],
        draft: .draft7)
    // For ["price": "12.50"]: "/price: expected number, got string (type)" and
    // "(the value): missing \"order_id\" (required)".
    return schema.violations(of: properties).map(\.description)
}
