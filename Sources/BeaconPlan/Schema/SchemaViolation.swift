/// One way a value fails a schema: where in the value (a JSON Pointer, `""` for the value
/// itself), which keyword of the schema (its JSON Pointer in the schema), and why.
///
/// ```swift
/// // price sent as a string
/// SchemaViolation(instancePath: "/price", schemaPath: "/properties/price/type", keyword: "type",
///                 message: "expected number, got string")
/// ```
public struct SchemaViolation: Sendable, Hashable, CustomStringConvertible {
    /// Where in the value, as a JSON Pointer (`/items/0/sku`); `""` is the value itself.
    public var instancePath: String
    /// The failing keyword's place in the schema, as a JSON Pointer.
    public var schemaPath: String
    /// The keyword that failed (`type`, `required`, `pattern`…).
    public var keyword: String
    /// Why, in words.
    public var message: String

    public init(instancePath: String, schemaPath: String, keyword: String, message: String) {
        self.instancePath = instancePath
        self.schemaPath = schemaPath
        self.keyword = keyword
        self.message = message
    }

    /// `/price: expected number, got string (type)`.
    public var description: String {
        "\(instancePath.isEmpty ? "(the value)" : instancePath): \(message) (\(keyword))"
    }
}
