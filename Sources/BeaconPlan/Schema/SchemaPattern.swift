import Foundation

/// `pattern` and `patternProperties`: ECMA-262 regular expressions, searched (not anchored),
/// compiled once. A pattern whose matching could take exponential time is refused when the
/// schema compiles: a quantified group that holds a quantifier of its own (`(a+)+`, `(a*)*`,
/// `(\\w+\\s?)*`), the shape of the classic catastrophic-backtracking patterns.
enum SchemaPattern {
    static func compile(_ pattern: String, path: String) throws(SchemaError) -> NSRegularExpression {
        if let nested = nestedQuantifier(pattern) {
            throw SchemaError(path: path, reason: .invalidPattern(pattern, reason: "could take exponential time: the group \(nested) is repeated and repeats inside"))
        }
        do {
            return try NSRegularExpression(pattern: pattern, options: [])
        } catch {
            throw SchemaError(path: path, reason: .invalidPattern(pattern, reason: "is not a regular expression"))
        }
    }

    /// The first group that is quantified (`+`, `*`, `{m,n}`) and holds such a quantifier, if any.
    static func nestedQuantifier(_ pattern: String) -> String? {
        let characters = Array(pattern)
        var opens: [(start: Int, inner: Bool)] = []  // inner: a quantifier inside
        var index = 0
        var inClass = false
        func isQuantifier(at position: Int) -> Bool {
            guard position < characters.count else { return false }
            switch characters[position] {
            case "+", "*": return true
            case "{": return true
            default: return false
            }
        }
        while index < characters.count {
            let character = characters[index]
            if character == "\\" {
                index += 2
                continue
            }
            if inClass {
                if character == "]" { inClass = false }
                index += 1
                continue
            }
            switch character {
            case "[": inClass = true
            case "(": opens.append((index, false))
            case ")":
                guard let group = opens.popLast() else { break }
                if group.inner, isQuantifier(at: index + 1) { return String(characters[group.start...index]) }
                // A quantified group makes its enclosing group's content repeat too.
                if (group.inner || isQuantifier(at: index + 1)), !opens.isEmpty { opens[opens.count - 1].inner = true }
            case "+", "*", "{":
                if !opens.isEmpty { opens[opens.count - 1].inner = true }
            default: break
            }
            index += 1
        }
        return nil
    }
}
