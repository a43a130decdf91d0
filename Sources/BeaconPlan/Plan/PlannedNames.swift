import Foundation
import BeaconWire

/// The property names a rule plans: those its schema's `properties` lists, and those its
/// `patternProperties` match. Any other is an unplanned property.
public struct PlannedNames: @unchecked Sendable {  // NSRegularExpression is immutable once made and safe to share
    public let names: Set<String>
    let patterns: [NSRegularExpression]

    init(names: Set<String>, patterns: [NSRegularExpression]) {
        self.names = names
        self.patterns = patterns
    }

    /// The names a schema of an object plans; `nil` when it lists none (it plans any name).
    init?(schema: [String: JSONValue], path: String) throws(SchemaError) {
        let names = schema["properties"]?.objectValue.map { Set($0.keys) }
        let sources = schema["patternProperties"]?.objectValue?.keys.sorted() ?? []
        guard names != nil || !sources.isEmpty else { return nil }
        var patterns: [NSRegularExpression] = []
        for source in sources {
            patterns.append(try SchemaPattern.compile(source, path: path + "/patternProperties/" + JSONPointer.escape(source)))
        }
        self.init(names: names ?? [], patterns: patterns)
    }

    public func contains(_ name: String) -> Bool {
        if names.contains(name) { return true }
        let range = NSRange(name.startIndex..., in: name)
        return patterns.contains { $0.firstMatch(in: name, options: [], range: range) != nil }
    }
}
