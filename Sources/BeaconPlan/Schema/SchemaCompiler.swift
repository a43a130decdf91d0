import BeaconWire
import Foundation

/// Turns a schema's JSON into ``SchemaNode``s once: every keyword checked for its draft and
/// its value, every pattern compiled, every `$ref` resolved to a node; a keyword it does not
/// know is an error naming where it is.
struct SchemaCompiler {
    let draft: SchemaDraft
    private(set) var nodes: [SchemaNode] = []
    /// Each compiled subschema by its JSON Pointer in the schema, for `$ref`.
    private var byPointer: [String: Int] = [:]
    private var references: [(node: Int, check: Int, target: String, path: String)] = []

    /// Keywords that only annotate: read by people and tools, never checked.
    static let annotations: Set<String> = [
        "$schema", "$comment", "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
        "contentMediaType", "contentEncoding", "contentSchema",
    ]

    init(draft: SchemaDraft) {
        self.draft = draft
    }

    /// Compiles `root`; the root is node 0.
    mutating func compileRoot(_ root: JSONValue) throws(SchemaError) {
        _ = try compile(root, path: "", depth: 0)
        for reference in references {
            guard let target = resolve(reference.target) else {
                throw SchemaError(path: reference.path, reason: .unresolvedReference(reference.target))
            }
            guard case .checks(var checks) = nodes[reference.node] else { continue }
            checks[reference.check].kind = .reference(target)
            nodes[reference.node] = .checks(checks)
        }
        try refuseCyclesWithoutProgress()
    }

    // MARK: One subschema

    private mutating func compile(_ json: JSONValue, path: String, depth: Int) throws(SchemaError) -> Int {
        guard depth <= JSONSchema.maxDepth else { throw SchemaError(path: path, reason: .tooDeep) }
        let index = nodes.count
        byPointer[path] = index
        switch json {
        case .bool(let verdict):
            nodes.append(.always(verdict))
            return index
        case .object(let object):
            nodes.append(.always(true))  // held in place while the subschemas compile after it
            nodes[index] = .checks(try checks(object, node: index, path: path, depth: depth))
            return index
        default:
            throw SchemaError(path: path, reason: .invalidValue(keyword: "schema", expected: "an object or a boolean"))
        }
    }

    private mutating func checks(_ object: [String: JSONValue], node: Int, path: String, depth: Int) throws(SchemaError) -> [SchemaCheck] {
        var checks: [SchemaCheck] = []
        func add(_ keyword: String, _ kind: SchemaCheck.Kind) { checks.append(SchemaCheck(path: path + "/" + JSONPointer.escape(keyword), keyword: keyword, kind: kind)) }
        func at(_ keyword: String) -> String { path + "/" + JSONPointer.escape(keyword) }
        func sub(_ keyword: String, _ value: JSONValue) throws(SchemaError) -> Int { try compile(value, path: at(keyword), depth: depth + 1) }
        func subs(_ keyword: String, _ value: JSONValue) throws(SchemaError) -> [Int] {
            guard let array = value.arrayValue, !array.isEmpty else {
                throw SchemaError(path: at(keyword), reason: .invalidValue(keyword: keyword, expected: "a non-empty array of schemas"))
            }
            var indices: [Int] = []
            for (position, element) in array.enumerated() { indices.append(try compile(element, path: at(keyword) + "/\(position)", depth: depth + 1)) }
            return indices
        }
        func map(_ keyword: String, _ value: JSONValue) throws(SchemaError) -> [String: Int] {
            guard let members = value.objectValue else { throw SchemaError(path: at(keyword), reason: .invalidValue(keyword: keyword, expected: "an object of schemas")) }
            var result: [String: Int] = [:]
            for (name, schema) in members.sorted(by: { $0.key < $1.key }) {
                result[name] = try compile(schema, path: at(keyword) + "/" + JSONPointer.escape(name), depth: depth + 1)
            }
            return result
        }
        func count(_ keyword: String, _ value: JSONValue) throws(SchemaError) -> Int {
            guard let number = value.intValue, number >= 0 else {
                throw SchemaError(path: at(keyword), reason: .invalidValue(keyword: keyword, expected: "a whole number, 0 or more"))
            }
            return number
        }
        func number(_ keyword: String, _ value: JSONValue) throws(SchemaError) -> Double {
            guard let number = value.doubleValue, number.isFinite else {
                throw SchemaError(path: at(keyword), reason: .invalidValue(keyword: keyword, expected: "a finite number"))
            }
            return number
        }
        func names(_ keyword: String, _ value: JSONValue) throws(SchemaError) -> [String] {
            guard let array = value.arrayValue, let strings = Optional(array.compactMap(\.stringValue)), strings.count == array.count else {
                throw SchemaError(path: at(keyword), reason: .invalidValue(keyword: keyword, expected: "an array of strings"))
            }
            return strings
        }

        if depth > 0, object["$id"] != nil { throw SchemaError(path: at("$id"), reason: .unsupportedKeyword("$id")) }
        // Containers of subschemas for `$ref`, compiled so that a pointer into them resolves.
        for container in ["definitions", "$defs"] {
            if let value = object[container] { _ = try map(container, value) }
        }
        if draft == .draft7, let reference = object["$ref"] {
            // Draft-07: a `$ref` stands for the whole schema; the keywords beside it are ignored.
            guard let target = reference.stringValue else { throw SchemaError(path: at("$ref"), reason: .invalidValue(keyword: "$ref", expected: "a string")) }
            references.append((node, 0, target, at("$ref")))
            return [SchemaCheck(path: at("$ref"), keyword: "$ref", kind: .reference(-1))]
        }

        for (keyword, value) in object.sorted(by: { $0.key < $1.key }) {
            if Self.annotations.contains(keyword) || keyword == "definitions" || keyword == "$defs" { continue }
            if keyword == "$id", depth == 0 { continue }
            switch keyword {
            case "type":
                let raw = value.stringValue.map { [$0] } ?? value.arrayValue?.compactMap(\.stringValue)
                let types = raw?.compactMap(JSONType.init(rawValue:))
                guard let types, let raw, types.count == raw.count, !types.isEmpty,
                    value.stringValue != nil || value.arrayValue?.count == raw.count
                else { throw SchemaError(path: at(keyword), reason: .invalidValue(keyword: keyword, expected: "a JSON type name or an array of them")) }
                add(keyword, .types(Set(types)))
            case "enum":
                guard let values = value.arrayValue else { throw SchemaError(path: at(keyword), reason: .invalidValue(keyword: keyword, expected: "an array")) }
                add(keyword, .enumeration(values))
            case "const": add(keyword, .constant(value))
            case "properties": add(keyword, .properties(try map(keyword, value)))
            case "patternProperties":
                guard let members = value.objectValue else { throw SchemaError(path: at(keyword), reason: .invalidValue(keyword: keyword, expected: "an object of schemas")) }
                var compiled: [(NSRegularExpression, Int)] = []
                for (pattern, schema) in members.sorted(by: { $0.key < $1.key }) {
                    let place = at(keyword) + "/" + JSONPointer.escape(pattern)
                    compiled.append((try SchemaPattern.compile(pattern, path: place), try compile(schema, path: place, depth: depth + 1)))
                }
                add(keyword, .patternProperties(compiled))
            case "additionalProperties":
                let named = Set(object["properties"]?.objectValue?.keys.map { $0 } ?? [])
                var patterns: [NSRegularExpression] = []
                for pattern in (object["patternProperties"]?.objectValue?.keys.sorted() ?? []) {
                    patterns.append(try SchemaPattern.compile(pattern, path: at("patternProperties") + "/" + JSONPointer.escape(pattern)))
                }
                add(keyword, .additionalProperties(try sub(keyword, value), named: named, patterns: patterns))
            case "required": add(keyword, .required(try names(keyword, value)))
            case "propertyNames": add(keyword, .propertyNames(try sub(keyword, value)))
            case "minProperties": add(keyword, .minProperties(try count(keyword, value)))
            case "maxProperties": add(keyword, .maxProperties(try count(keyword, value)))
            case "dependentRequired" where draft == .draft2020_12:
                guard let members = value.objectValue else { throw SchemaError(path: at(keyword), reason: .invalidValue(keyword: keyword, expected: "an object of arrays of strings")) }
                var result: [String: [String]] = [:]
                for (name, list) in members { result[name] = try names(keyword, list) }
                add(keyword, .dependentRequired(result))
            case "dependentSchemas" where draft == .draft2020_12: add(keyword, .dependentSchemas(try map(keyword, value)))
            case "dependencies" where draft == .draft7:
                guard let members = value.objectValue else { throw SchemaError(path: at(keyword), reason: .invalidValue(keyword: keyword, expected: "an object")) }
                var required: [String: [String]] = [:]
                var schemas: [String: Int] = [:]
                for (name, dependency) in members.sorted(by: { $0.key < $1.key }) {
                    if dependency.arrayValue != nil {
                        required[name] = try names(keyword, dependency)
                    } else {
                        schemas[name] = try compile(dependency, path: at(keyword) + "/" + JSONPointer.escape(name), depth: depth + 1)
                    }
                }
                if !required.isEmpty { add(keyword, .dependentRequired(required)) }
                if !schemas.isEmpty { add(keyword, .dependentSchemas(schemas)) }
            case "prefixItems" where draft == .draft2020_12: add(keyword, .prefixItems(try subs(keyword, value)))
            case "items":
                if draft == .draft7, value.arrayValue != nil {
                    let tuple = value.arrayValue?.count ?? 0
                    add(keyword, .prefixItems(tuple == 0 ? [] : try subs(keyword, value)))
                    if let additional = object["additionalItems"] {
                        checks.append(SchemaCheck(path: at("additionalItems"), keyword: "additionalItems",
                                                  kind: .items(try sub("additionalItems", additional), from: tuple)))
                    }
                } else {
                    let prefix = draft == .draft2020_12 ? (object["prefixItems"]?.arrayValue?.count ?? 0) : 0
                    add(keyword, .items(try sub(keyword, value), from: prefix))
                }
            case "additionalItems" where draft == .draft7: continue  // read with an `items` array; ignored without one
            case "contains":
                let minimum = draft == .draft2020_12 ? try object["minContains"].map { value throws(SchemaError) in try count("minContains", value) } ?? 1 : 1
                let maximum = draft == .draft2020_12 ? try object["maxContains"].map { value throws(SchemaError) in try count("maxContains", value) } : nil
                add(keyword, .contains(try sub(keyword, value), min: minimum, max: maximum))
            case "minContains" where draft == .draft2020_12, "maxContains" where draft == .draft2020_12:
                _ = try count(keyword, value)  // read with `contains`; ignored without it
            case "minItems": add(keyword, .minItems(try count(keyword, value)))
            case "maxItems": add(keyword, .maxItems(try count(keyword, value)))
            case "uniqueItems":
                guard case .bool(let unique) = value else { throw SchemaError(path: at(keyword), reason: .invalidValue(keyword: keyword, expected: "a boolean")) }
                if unique { add(keyword, .uniqueItems) }
            case "minLength": add(keyword, .minLength(try count(keyword, value)))
            case "maxLength": add(keyword, .maxLength(try count(keyword, value)))
            case "pattern":
                guard let source = value.stringValue else { throw SchemaError(path: at(keyword), reason: .invalidValue(keyword: keyword, expected: "a string")) }
                add(keyword, .pattern(try SchemaPattern.compile(source, path: at(keyword)), source: source))
            case "minimum": add(keyword, .minimum(try number(keyword, value)))
            case "maximum": add(keyword, .maximum(try number(keyword, value)))
            case "exclusiveMinimum": add(keyword, .exclusiveMinimum(try number(keyword, value)))
            case "exclusiveMaximum": add(keyword, .exclusiveMaximum(try number(keyword, value)))
            case "multipleOf":
                guard let divisor = value.doubleValue, divisor.isFinite, divisor > 0 else {
                    throw SchemaError(path: at(keyword), reason: .invalidValue(keyword: keyword, expected: "a finite number above 0"))
                }
                add(keyword, .multipleOf(value))
            case "allOf": add(keyword, .allOf(try subs(keyword, value)))
            case "anyOf": add(keyword, .anyOf(try subs(keyword, value)))
            case "oneOf": add(keyword, .oneOf(try subs(keyword, value)))
            case "not": add(keyword, .not(try sub(keyword, value)))
            case "if":
                let condition = try sub(keyword, value)
                let then = try object["then"].map { value throws(SchemaError) in try sub("then", value) }
                let otherwise = try object["else"].map { value throws(SchemaError) in try sub("else", value) }
                add(keyword, .conditional(if: condition, then: then, else: otherwise))
            case "then", "else":
                if object["if"] == nil { _ = try sub(keyword, value) }  // ignored without `if`, but still a schema
            case "format":
                guard let name = value.stringValue else { throw SchemaError(path: at(keyword), reason: .invalidValue(keyword: keyword, expected: "a string")) }
                guard let format = SchemaFormat(rawValue: name) else { throw SchemaError(path: at(keyword), reason: .unsupportedKeyword("format \"\(name)\"")) }
                add(keyword, .format(format))
            case "$ref":
                guard let target = value.stringValue else { throw SchemaError(path: at(keyword), reason: .invalidValue(keyword: keyword, expected: "a string")) }
                references.append((node, checks.count, target, at(keyword)))
                add(keyword, .reference(-1))
            default:
                throw SchemaError(path: at(keyword), reason: .unsupportedKeyword(keyword))
            }
        }
        return checks
    }

    // MARK: References

    /// The node a same-document `$ref` names: `#`, or `#` and a JSON Pointer to a subschema.
    private func resolve(_ reference: String) -> Int? {
        guard reference.hasPrefix("#") else { return nil }
        let fragment = String(reference.dropFirst())
        guard fragment.isEmpty || fragment.hasPrefix("/"), let decoded = fragment.removingPercentEncoding else { return nil }
        let segments = decoded.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { JSONPointer.unescape(String($0)) }
        let pointer = segments.map { "/" + JSONPointer.escape($0) }.joined()
        return byPointer[pointer]
    }

    /// A `$ref` chain that comes back to itself on the same value (`{"$ref": "#"}`, or two
    /// definitions naming each other through `allOf`) would never end: refused.
    private func refuseCyclesWithoutProgress() throws(SchemaError) {
        func sameValueEdges(_ node: Int) -> [(Int, String)] {
            guard case .checks(let checks) = nodes[node] else { return [] }
            return checks.flatMap { check -> [(Int, String)] in
                switch check.kind {
                case .reference(let target): return [(target, check.path)]
                case .allOf(let list), .anyOf(let list), .oneOf(let list): return list.map { ($0, check.path) }
                case .not(let target): return [(target, check.path)]
                case .conditional(let condition, let then, let otherwise): return [condition, then, otherwise].compactMap { $0 }.map { ($0, check.path) }
                case .dependentSchemas(let schemas): return schemas.values.map { ($0, check.path) }
                default: return []
                }
            }
        }
        var state = [UInt8](repeating: 0, count: nodes.count)  // 0 new, 1 on the path, 2 done
        for start in nodes.indices where state[start] == 0 {
            var stack: [(node: Int, edges: [(Int, String)], next: Int)] = [(start, sameValueEdges(start), 0)]
            state[start] = 1
            while let top = stack.last {
                if top.next == top.edges.count {
                    state[top.node] = 2
                    stack.removeLast()
                    continue
                }
                stack[stack.count - 1].next += 1
                let (target, path) = top.edges[top.next]
                if state[target] == 1 { throw SchemaError(path: path, reason: .unresolvedReference("a cycle of $ref that never reaches a part of the value")) }
                if state[target] == 0 {
                    state[target] = 1
                    stack.append((target, sameValueEdges(target), 0))
                }
            }
        }
    }
}

/// JSON Pointer segments (RFC 6901): `~` as `~0`, `/` as `~1`.
enum JSONPointer {
    static func escape(_ segment: String) -> String {
        segment.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    static func unescape(_ segment: String) -> String {
        segment.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
    }
}
