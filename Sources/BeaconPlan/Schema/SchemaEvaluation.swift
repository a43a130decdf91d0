import BeaconWire
import Foundation

/// One walk of a value through compiled nodes, gathering violations when asked to. Inside
/// `anyOf`, `oneOf`, `not` and `if`, subschemas are only asked yes or no.
struct SchemaEvaluation {
    let nodes: [SchemaNode]
    let collects: Bool
    private(set) var violations: [SchemaViolation] = []

    init(nodes: [SchemaNode], collects: Bool) {
        self.nodes = nodes
        self.collects = collects
    }

    mutating func check(_ node: Int, _ value: JSONValue, at path: String) -> Bool {
        switch nodes[node] {
        case .always(true): return true
        case .always(false):
            fail(path, "", "false", "no value is allowed here")
            return false
        case .checks(let checks):
            var valid = true
            for rule in checks where !run(rule, value, path) {
                valid = false
                if !collects { return false }
            }
            return valid
        }
    }

    /// Yes or no, nothing gathered.
    private func holds(_ node: Int, _ value: JSONValue, at path: String) -> Bool {
        var quiet = SchemaEvaluation(nodes: nodes, collects: false)
        return quiet.check(node, value, at: path)
    }

    private mutating func fail(_ path: String, _ schemaPath: String, _ keyword: String, _ message: String) {
        guard collects else { return }
        violations.append(SchemaViolation(instancePath: path, schemaPath: schemaPath, keyword: keyword, message: message))
    }

    private mutating func run(_ rule: SchemaCheck, _ value: JSONValue, _ path: String) -> Bool {
        func failed(_ message: String) -> Bool {
            fail(path, rule.path, rule.keyword, message)
            return false
        }
        func member(_ name: String) -> String { path + "/" + JSONPointer.escape(name) }
        switch rule.kind {
        case .types(let types):
            if types.contains(where: { $0.admits(value) }) { return true }
            return failed("expected \(types.map(\.rawValue).sorted().joined(separator: " or ")), got \(JSONEquality.typeName(value))")
        case .enumeration(let values):
            return values.contains { JSONEquality.equal($0, value) } || failed("not one of the \(values.count) values allowed")
        case .constant(let expected):
            return JSONEquality.equal(expected, value) || failed("not the one value allowed")
        case .properties(let schemas):
            guard case .object(let object) = value else { return true }
            var valid = true
            for (name, schema) in schemas.sorted(by: { $0.key < $1.key }) {
                guard let property = object[name] else { continue }
                if !check(schema, property, at: member(name)) {
                    valid = false
                    if !collects { return false }
                }
            }
            return valid
        case .patternProperties(let patterns):
            guard case .object(let object) = value else { return true }
            var valid = true
            for (name, property) in object.sorted(by: { $0.key < $1.key }) {
                for (pattern, schema) in patterns where SchemaMatch.search(pattern, name) {
                    if !check(schema, property, at: member(name)) {
                        valid = false
                        if !collects { return false }
                    }
                }
            }
            return valid
        case .additionalProperties(let schema, let named, let patterns):
            guard case .object(let object) = value else { return true }
            var valid = true
            for (name, property) in object.sorted(by: { $0.key < $1.key })
            where !named.contains(name) && !patterns.contains(where: { SchemaMatch.search($0, name) }) {
                if case .always(false) = nodes[schema] {
                    fail(member(name), rule.path, rule.keyword, "the property \"\(name)\" is not allowed")
                    valid = false
                } else if !check(schema, property, at: member(name)) {
                    valid = false
                }
                if !valid, !collects { return false }
            }
            return valid
        case .required(let names):
            guard case .object(let object) = value else { return true }
            let missing = names.filter { object[$0] == nil }
            return missing.isEmpty || failed("missing \(missing.map { "\"\($0)\"" }.joined(separator: ", "))")
        case .propertyNames(let schema):
            guard case .object(let object) = value else { return true }
            for name in object.keys.sorted() where !holds(schema, .string(name), at: member(name)) {
                return failed("the property name \"\(name)\" is not allowed")
            }
            return true
        case .minProperties(let count):
            guard case .object(let object) = value else { return true }
            return object.count >= count || failed("\(object.count) properties, fewer than \(count)")
        case .maxProperties(let count):
            guard case .object(let object) = value else { return true }
            return object.count <= count || failed("\(object.count) properties, more than \(count)")
        case .dependentRequired(let dependencies):
            guard case .object(let object) = value else { return true }
            for (name, needed) in dependencies.sorted(by: { $0.key < $1.key }) where object[name] != nil {
                let missing = needed.filter { object[$0] == nil }
                if !missing.isEmpty { return failed("\"\(name)\" needs \(missing.map { "\"\($0)\"" }.joined(separator: ", "))") }
            }
            return true
        case .dependentSchemas(let schemas):
            guard case .object(let object) = value else { return true }
            var valid = true
            for (name, schema) in schemas.sorted(by: { $0.key < $1.key }) where object[name] != nil {
                if !check(schema, value, at: path) {
                    valid = false
                    if !collects { return false }
                }
            }
            return valid
        case .prefixItems(let schemas):
            guard case .array(let elements) = value else { return true }
            var valid = true
            for (index, element) in elements.prefix(schemas.count).enumerated() where !check(schemas[index], element, at: path + "/\(index)") {
                valid = false
                if !collects { return false }
            }
            return valid
        case .items(let schema, let start):
            guard case .array(let elements) = value, elements.count > start else { return true }
            var valid = true
            for index in start..<elements.count where !check(schema, elements[index], at: path + "/\(index)") {
                valid = false
                if !collects { return false }
            }
            return valid
        case .contains(let schema, let minimum, let maximum):
            guard case .array(let elements) = value else { return true }
            let matching = elements.enumerated().filter { holds(schema, $0.element, at: path + "/\($0.offset)") }.count
            if matching < minimum { return failed(minimum == 1 ? "no element matches" : "\(matching) elements match, fewer than \(minimum)") }
            if let maximum, matching > maximum { return failed("\(matching) elements match, more than \(maximum)") }
            return true
        case .minItems(let count):
            guard case .array(let elements) = value else { return true }
            return elements.count >= count || failed("\(elements.count) elements, fewer than \(count)")
        case .maxItems(let count):
            guard case .array(let elements) = value else { return true }
            return elements.count <= count || failed("\(elements.count) elements, more than \(count)")
        case .uniqueItems:
            guard case .array(let elements) = value else { return true }
            // Hashed by JSON's equality: linear in the elements, not quadratic.
            var seen: [JSONEquality.Key: Int] = [:]
            for (index, element) in elements.enumerated() {
                if let first = seen.updateValue(index, forKey: JSONEquality.Key(element)) {
                    return failed("elements \(first) and \(index) are equal")
                }
            }
            return true
        case .minLength(let count):
            guard case .string(let text) = value else { return true }
            let length = text.unicodeScalars.count
            return length >= count || failed("\(length) characters, fewer than \(count)")
        case .maxLength(let count):
            guard case .string(let text) = value else { return true }
            let length = text.unicodeScalars.count
            return length <= count || failed("\(length) characters, more than \(count)")
        case .pattern(let pattern, let source):
            guard case .string(let text) = value else { return true }
            return SchemaMatch.search(pattern, text) || failed("does not match \(source)")
        case .minimum(let bound):
            guard let number = value.doubleValue else { return true }
            return number >= bound || failed("\(number) is below the minimum \(bound)")
        case .maximum(let bound):
            guard let number = value.doubleValue else { return true }
            return number <= bound || failed("\(number) is above the maximum \(bound)")
        case .exclusiveMinimum(let bound):
            guard let number = value.doubleValue else { return true }
            return number > bound || failed("\(number) is not above \(bound)")
        case .exclusiveMaximum(let bound):
            guard let number = value.doubleValue else { return true }
            return number < bound || failed("\(number) is not below \(bound)")
        case .multipleOf(let divisor):
            guard value.doubleValue != nil else { return true }
            return JSONEquality.isMultiple(value, of: divisor) || failed("not a multiple of \(divisor.doubleValue ?? 0)")
        case .allOf(let schemas):
            var valid = true
            for schema in schemas where !check(schema, value, at: path) {
                valid = false
                if !collects { return false }
            }
            return valid
        case .anyOf(let schemas):
            return schemas.contains { holds($0, value, at: path) } || failed("matches none of the \(schemas.count) schemas")
        case .oneOf(let schemas):
            let matching = schemas.filter { holds($0, value, at: path) }.count
            return matching == 1 || failed(matching == 0 ? "matches none of the \(schemas.count) schemas" : "matches \(matching) of the schemas, not exactly one")
        case .not(let schema):
            return !holds(schema, value, at: path) || failed("matches a schema it must not")
        case .conditional(let condition, let then, let otherwise):
            if holds(condition, value, at: path) {
                return then.map { check($0, value, at: path) } ?? true
            }
            return otherwise.map { check($0, value, at: path) } ?? true
        case .reference(let target):
            return check(target, value, at: path)
        case .format(let format):
            guard case .string(let text) = value else { return true }
            return format.admits(text) || failed("not a valid \(format.rawValue)")
        }
    }
}

/// Matching a compiled pattern anywhere in a string.
enum SchemaMatch {
    static func search(_ pattern: NSRegularExpression, _ text: String) -> Bool {
        pattern.firstMatch(in: text, options: [], range: NSRange(text.startIndex..., in: text)) != nil
    }
}

/// JSON's own equality: numbers by value (1 equals 1.0), arrays in order, objects by members.
enum JSONEquality {
    static func equal(_ left: JSONValue, _ right: JSONValue) -> Bool {
        switch (left, right) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        // Code point by code point: Swift's `==` would call "é" and "e\u{301}" equal.
        case (.string(let a), .string(let b)): return a.unicodeScalars.elementsEqual(b.unicodeScalars)
        case (.int(let a), .int(let b)): return a == b
        case (.int, .double), (.double, .int), (.double, .double): return left.doubleValue == right.doubleValue
        case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy { equal($0, $1) }
        case (.object(let a), .object(let b)):
            return a.count == b.count && a.allSatisfy { key, value in b[key].map { equal(value, $0) } ?? false }
        default: return false
        }
    }

    /// `value` divided by `divisor` is a whole number: exactly for integers, within a
    /// rounding error for others; a quotient too large to be finite is not.
    static func isMultiple(_ value: JSONValue, of divisor: JSONValue) -> Bool {
        if case .int(let number) = value, case .int(let by) = divisor, by > 0 {
            return number % by == 0
        }
        guard let number = value.doubleValue, let by = divisor.doubleValue, by > 0 else { return false }
        let quotient = number / by
        guard quotient.isFinite else { return false }
        return abs(quotient - quotient.rounded()) <= 1e-9 * max(1, abs(quotient))
    }

    /// A value hashed and compared as JSON compares it (for `uniqueItems`).
    struct Key: Hashable {
        let value: JSONValue

        init(_ value: JSONValue) { self.value = value }

        static func == (left: Key, right: Key) -> Bool { JSONEquality.equal(left.value, right.value) }

        func hash(into hasher: inout Hasher) { Self.hash(value, into: &hasher) }

        private static func hash(_ value: JSONValue, into hasher: inout Hasher) {
            switch value {
            case .null: hasher.combine(0)
            case .bool(let flag): hasher.combine(flag)
            // Numbers equal by value hash alike: 1 and 1.0 as the same Double.
            case .int, .double: hasher.combine(value.doubleValue ?? 0)
            case .string(let text): for scalar in text.unicodeScalars { hasher.combine(scalar.value) }
            case .array(let elements):
                hasher.combine(elements.count)
                for element in elements { hash(element, into: &hasher) }
            case .object(let members):
                // Order-free: the members' hashes summed.
                var sum = 0
                for (name, member) in members {
                    var inner = Hasher()
                    for scalar in name.unicodeScalars { inner.combine(scalar.value) }
                    hash(member, into: &inner)
                    sum = sum &+ inner.finalize()
                }
                hasher.combine(members.count)
                hasher.combine(sum)
            }
        }
    }

    static func typeName(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "boolean"
        case .int: return "integer"
        case .double(let number): return number.isFinite && number.rounded(.towardZero) == number ? "integer" : "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}
