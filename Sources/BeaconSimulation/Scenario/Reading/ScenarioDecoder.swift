/// Builds a scenario's values from its JSON tree, collecting every field error with its
/// position; ``firstError`` is the one earliest in the document.
///
/// Readers never fail: a missing or wrong field is recorded and its default returned, so one
/// pass visits the whole document and the error reported does not depend on decoding order.
struct ScenarioDecoder {
    /// The engine's own reading of a flush policy: a problem in words, or `nil` when it
    /// reads (`nil` check: any text of the right length passes).
    var checkPolicy: (@Sendable (String) -> String?)?
    /// The requests in flight the engine takes (`engine.maxConcurrentRequests`).
    var concurrencyRange = ScenarioEngine.maxConcurrentRequestsRange

    /// The members of one JSON object, by key, with the object's path and position.
    struct Fields {
        var path: String
        var line: Int
        var column: Int
        var members: [String: ScenarioJSON]

        /// The path of a member: `key` at the top level, `path.key` below.
        func path(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }
        subscript(key: String) -> ScenarioJSON? { members[key] }
    }

    /// A `Double` interval whose lower end may be open; its text reads "0 to 1" or
    /// "more than 0, at most 86400".
    struct Range {
        var lower: Double
        var lowerOpen = false
        var upper: Double

        func contains(_ value: Double) -> Bool {
            (lowerOpen ? value > lower : value >= lower) && value <= upper
        }

        var text: String {
            lowerOpen
                ? "more than \(ScenarioDecoder.format(lower)), at most \(ScenarioDecoder.format(upper))"
                : "\(ScenarioDecoder.format(lower)) to \(ScenarioDecoder.format(upper))"
        }
    }

    private(set) var errors: [ScenarioError] = []

    /// The error earliest in the document (by line, then column, then discovery).
    var firstError: ScenarioError? {
        errors.enumerated().min { left, right in
            (left.element.line, left.element.column, left.offset) < (right.element.line, right.element.column, right.offset)
        }?.element
    }

    mutating func report(_ line: Int, _ column: Int, _ field: String, _ message: String) {
        errors.append(ScenarioError(line: line, column: column, field: field, message: message))
    }

    mutating func report(_ node: ScenarioJSON, _ field: String, _ message: String) {
        report(node.line, node.column, field, message)
    }

    /// "found a string; expected …" for a value of the wrong type or out of range.
    mutating func reportFound(_ node: ScenarioJSON, _ field: String, expected: String) {
        report(node, field, "found \(Self.describe(node)); expected \(expected)")
    }

    /// Checks that `node` is an object and that it has only `known` keys (unknown keys are
    /// reported with the closest known key as a suggestion).
    mutating func object(_ node: ScenarioJSON, path: String, expected: String, known: [String]) -> Fields? {
        guard case .object(let list) = node.value else {
            reportFound(node, path, expected: expected)
            return nil
        }
        var fields = Fields(path: path, line: node.line, column: node.column, members: [:])
        for member in list {
            guard known.contains(member.key) else {
                let place = path.isEmpty ? "the scenario" : path
                var message = "unknown field '\(ScenarioJSONReader.clip(member.key))' in \(place)"
                if let suggestion = Self.suggestion(for: member.key, among: known) {
                    message += "; did you mean '\(suggestion)'?"
                } else {
                    message += "; known fields: \(known.joined(separator: ", "))"
                }
                report(member.keyLine, member.keyColumn, fields.path(member.key), message)
                continue
            }
            fields.members[member.key] = member.value
        }
        return fields
    }

    /// The member `key`, reporting it missing when absent.
    mutating func required(_ fields: Fields, _ key: String) -> ScenarioJSON? {
        guard let node = fields[key] else {
            let place = fields.path.isEmpty ? "the scenario" : fields.path
            report(fields.line, fields.column, fields.path(key), "missing required field '\(key)' in \(place)")
            return nil
        }
        return node
    }

    /// A string member checked by `validate` (which returns a problem, or `nil` when fine).
    mutating func string(
        _ fields: Fields, _ key: String, required isRequired: Bool = false, expected: String,
        validate: (String) -> String? = { _ in nil }
    ) -> String? {
        guard let node = isRequired ? required(fields, key) : fields[key] else { return nil }
        guard case .string(let text) = node.value else {
            reportFound(node, fields.path(key), expected: expected)
            return nil
        }
        if let problem = validate(text) {
            report(node, fields.path(key), "\(problem); expected \(expected)")
            return nil
        }
        return text
    }

    /// A number member within `range`; integer literals are accepted.
    mutating func double(
        _ fields: Fields, _ key: String, required isRequired: Bool = false, range: Range, expected: String
    ) -> Double? {
        guard let node = isRequired ? required(fields, key) : fields[key] else { return nil }
        let expectation = "\(expected), \(range.text)"
        guard case .number(let text) = node.value, let value = Double(text), range.contains(value) else {
            reportFound(node, fields.path(key), expected: expectation)
            return nil
        }
        return value + 0.0  // folds -0 into 0
    }

    /// A whole-number member within `range`, read exactly from its literal (no fraction or
    /// exponent allowed).
    mutating func integer(_ fields: Fields, _ key: String, range: ClosedRange<Int>, expected: String) -> Int? {
        guard let node = fields[key] else { return nil }
        let expectation = "\(expected), \(range.lowerBound) to \(range.upperBound)"
        guard case .number(let text) = node.value,
            case .value(let negative, let magnitude) = ScenarioInteger(literal: text),
            let value = Self.int(negative: negative, magnitude: magnitude),
            range.contains(value)
        else {
            reportFound(node, fields.path(key), expected: expectation)
            return nil
        }
        return value
    }

    /// A whole-number member from 0 to `UInt64.max`, read exactly from its literal.
    mutating func unsigned(_ fields: Fields, _ key: String, expected: String) -> UInt64? {
        guard let node = fields[key] else { return nil }
        guard case .number(let text) = node.value,
            case .value(let negative, let magnitude) = ScenarioInteger(literal: text),
            !negative || magnitude == 0
        else {
            reportFound(node, fields.path(key), expected: "\(expected), 0 to \(UInt64.max)")
            return nil
        }
        return magnitude
    }

    /// A boolean member.
    mutating func bool(_ fields: Fields, _ key: String, expected: String) -> Bool? {
        guard let node = fields[key] else { return nil }
        guard case .bool(let value) = node.value else {
            reportFound(node, fields.path(key), expected: expected)
            return nil
        }
        return value
    }

    /// An array member whose count is within `counts`; returns its elements.
    mutating func array(
        _ fields: Fields, _ key: String, required isRequired: Bool = false, counts: ClosedRange<Int>, expected: String
    ) -> [ScenarioJSON]? {
        guard let node = isRequired ? required(fields, key) : fields[key] else { return nil }
        let expectation = "\(expected), \(counts.lowerBound) to \(counts.upperBound) of them"
        guard case .array(let elements) = node.value else {
            reportFound(node, fields.path(key), expected: expectation)
            return nil
        }
        guard counts.contains(elements.count) else {
            report(node, fields.path(key), "found \(elements.count); expected \(expectation)")
            return elements.count > counts.upperBound ? Array(elements.prefix(counts.upperBound)) : elements
        }
        return elements
    }

    // MARK: - Helpers

    static func int(negative: Bool, magnitude: UInt64) -> Int? {
        guard magnitude <= UInt64(Int.max) else { return nil }
        let value = Int(magnitude)
        return negative ? -value : value
    }

    /// A value as quoted in messages: the number's literal, the string in quotes, or its kind.
    static func describe(_ node: ScenarioJSON) -> String {
        switch node.value {
        case .number(let text): return ScenarioJSONReader.clip(text)
        case .string(let text): return "the string \"\(ScenarioJSONReader.clip(text))\""
        default: return node.kindDescription
        }
    }

    /// A bound for messages: `100000`, `0.5`.
    static func format(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15, let whole = Int64(exactly: value) {
            return String(whole)
        }
        return String(value)
    }

    /// The candidate closest to `word` by edit distance (ignoring case), if within 2.
    static func suggestion(for word: String, among candidates: [String]) -> String? {
        let target = Array(word.lowercased().unicodeScalars)
        guard target.count <= 200 else { return nil }
        var best: (String, Int)?
        for candidate in candidates {
            let distance = editDistance(target, Array(candidate.lowercased().unicodeScalars))
            if distance <= 2, distance < (best?.1 ?? Int.max) { best = (candidate, distance) }
        }
        return best?.0
    }

    /// Levenshtein distance.
    static func editDistance(_ left: [Unicode.Scalar], _ right: [Unicode.Scalar]) -> Int {
        guard !left.isEmpty else { return right.count }
        guard !right.isEmpty else { return left.count }
        var previous = Array(0...right.count)
        var current = previous
        for i in 1...left.count {
            current[0] = i
            for j in 1...right.count {
                let substitution = previous[j - 1] + (left[i - 1] == right[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[right.count]
    }
}

extension ScenarioDecoder {
    /// The problem with a display name (scenario or step): empty, longer than `maxLength`
    /// characters, or holding a control character.
    static func nameProblem(_ text: String, maxLength: Int) -> String? {
        if text.isEmpty { return "found an empty string" }
        if text.count > maxLength { return "found \(text.count) characters" }
        if let control = text.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            return "found the control character \(ScenarioJSONReader.hexScalar(control.value))"
        }
        return nil
    }

    /// The problem with a collector name: it must match `[A-Za-z0-9_-]{1,40}`.
    static func collectorNameProblem(_ text: String) -> String? {
        if text.isEmpty { return "found an empty string" }
        if text.unicodeScalars.count > ScenarioCollector.maxNameLength {
            return "found \(text.unicodeScalars.count) characters"
        }
        if let bad = text.unicodeScalars.first(where: { !isCollectorNameScalar($0) }) {
            return "found the character \(ScenarioJSONReader.hexScalar(bad.value))"
                + (bad.properties.generalCategory == .control ? "" : " '\(bad)'")
        }
        return nil
    }

    static func isCollectorNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "_", "-": return true
        default: return false
        }
    }

    /// A collector name referenced by a step: reports it when no collector has that name.
    mutating func checkReference(_ name: String, line: Int, column: Int, field: String, collectors: [String]) -> Bool {
        guard collectors.contains(name) else {
            var message = "no collector named '\(ScenarioJSONReader.clip(name))'"
            if let suggestion = Self.suggestion(for: name, among: collectors) {
                message += "; did you mean '\(suggestion)'?"
            } else {
                message += "; the collectors are \(collectors.joined(separator: ", "))"
            }
            report(line, column, field, message)
            return false
        }
        return true
    }
}
