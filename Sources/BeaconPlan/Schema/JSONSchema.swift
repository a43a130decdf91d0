import BeaconWire
import Foundation

/// A JSON Schema compiled once, for checking many values: every keyword read, every pattern
/// compiled, every `$ref` resolved when it is made; checking a value walks the compiled nodes.
///
/// It checks the keywords tracking plans use, in draft-07 and 2020-12 (docs/plans.md has the
/// table); a keyword it does not check is refused when the schema compiles, naming where it
/// is, so that a plan never seems to enforce what it does not. `format` is an assertion.
///
/// ```swift
/// let schema = try JSONSchema(["type": "object", "required": ["order_id"],
///                              "properties": ["price": ["type": "number"]]], draft: .draft7)
/// schema.violations(of: ["price": "12"])
/// // [/price: expected number, got string (type), (the value): missing "order_id" (required)]
/// ```
public struct JSONSchema: Sendable {
    /// How deep subschemas may nest.
    public static let maxDepth = 64

    public let draft: SchemaDraft
    let nodes: [SchemaNode]

    /// Compiles `json` as a schema of `draft`.
    public init(_ json: JSONValue, draft: SchemaDraft) throws(SchemaError) {
        var compiler = SchemaCompiler(draft: draft)
        try compiler.compileRoot(json)
        self.draft = draft
        nodes = compiler.nodes
    }

    /// Whether `value` holds every rule.
    public func validates(_ value: JSONValue) -> Bool {
        var evaluation = SchemaEvaluation(nodes: nodes, collects: false)
        return evaluation.check(0, value, at: "")
    }

    /// Every way `value` fails, in schema order (empty: it holds every rule).
    public func violations(of value: JSONValue) -> [SchemaViolation] {
        var evaluation = SchemaEvaluation(nodes: nodes, collects: true)
        _ = evaluation.check(0, value, at: "")
        return evaluation.violations
    }
}
