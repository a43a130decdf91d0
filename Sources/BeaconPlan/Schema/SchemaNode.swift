import BeaconWire
import Foundation

/// A compiled schema: `true`, `false`, or the checks of its keywords, each with its place in
/// the schema. Subschemas are indices into ``JSONSchema``'s node table, so a `$ref` (even to
/// an ancestor, as a tree's schema has) is an index resolved once at compile time.
enum SchemaNode: Sendable {
    case always(Bool)
    case checks([SchemaCheck])
}

/// One keyword's check, ready to run: literals parsed, patterns compiled, names collected.
struct SchemaCheck: Sendable {
    /// The keyword's JSON Pointer in the schema, and the keyword.
    var path: String
    var keyword: String
    var kind: Kind

    enum Kind: @unchecked Sendable {  // NSRegularExpression is immutable once made and safe to share
        case types(Set<JSONType>)
        case enumeration([JSONValue])
        case constant(JSONValue)
        case properties([String: Int])
        case patternProperties([(NSRegularExpression, Int)])
        /// The subschema for members no `properties` name and no `patternProperties` pattern matches.
        case additionalProperties(Int, named: Set<String>, patterns: [NSRegularExpression])
        case required([String])
        case propertyNames(Int)
        case minProperties(Int)
        case maxProperties(Int)
        case dependentRequired([String: [String]])
        case dependentSchemas([String: Int])
        /// Each element at index i of `schemas` for the array's element i.
        case prefixItems([Int])
        /// Every element from `index` on.
        case items(Int, from: Int)
        case contains(Int, min: Int, max: Int?)
        case minItems(Int)
        case maxItems(Int)
        case uniqueItems
        case minLength(Int)
        case maxLength(Int)
        case pattern(NSRegularExpression, source: String)
        case minimum(Double)
        case maximum(Double)
        case exclusiveMinimum(Double)
        case exclusiveMaximum(Double)
        case multipleOf(JSONValue)
        case allOf([Int])
        case anyOf([Int])
        case oneOf([Int])
        case not(Int)
        case conditional(if: Int, then: Int?, else: Int?)
        /// Resolved after the whole schema is compiled.
        case reference(Int)
        case format(SchemaFormat)
    }
}

/// A JSON type as `type` names it; `integer` is a number with no fraction.
enum JSONType: String, Sendable, Hashable, CaseIterable {
    case null, boolean, object, array, number, string, integer

    /// Whether `value` is of this type (`1.0` is an integer, as draft 6 and later say).
    func admits(_ value: JSONValue) -> Bool {
        switch (self, value) {
        case (.null, .null), (.boolean, .bool), (.object, .object), (.array, .array), (.string, .string): return true
        case (.number, .int), (.number, .double): return true
        case (.integer, .int): return true
        case (.integer, .double(let number)): return number.isFinite && number.rounded(.towardZero) == number
        default: return false
        }
    }
}
