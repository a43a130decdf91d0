import BeaconWire
import Foundation

/// The demo generator's event catalogue: event names with weights and property templates.
///
/// Read from JSON (`Assets/demo-events.json`):
///
/// ```json
/// {"users": 40,
///  "events": [{"name": "Page Viewed", "weight": 6,
///              "properties": {"path": {"oneOf": ["/", "/pricing"]}, "ms": {"int": [5, 900]},
///                             "amount": {"double": [1, 250]}, "trial": {"bool": 0.3}, "plan": "pro"}}]}
/// ```
///
/// A property template is an object with one of the keys `oneOf` (pick one of the
/// values), `int` or `double` (`[low, high]`, inclusive) or `bool` (the chance of
/// `true`); any other JSON value is used as it is.
struct DemoCatalogue: Sendable {
    struct Entry: Sendable {
        var name: String
        var weight: Int
        var properties: [String: JSONValue]
    }

    var entries: [Entry]
    /// How many distinct `userId`s the generator spreads events over.
    var users: Int

    /// Reads a catalogue file; the error names the file and what is wrong.
    init(contentsOf path: String) throws(CLIError) {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .badInput("--catalogue \(path): cannot read it (\(error.localizedDescription))")
        }
        let json: JSONValue
        do {
            json = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw .badInput("--catalogue \(path) is not JSON: \(error)")
        }
        guard case .object(let root) = json, case .array(let events)? = root["events"], !events.isEmpty else {
            throw .badInput("--catalogue \(path) needs an \"events\" array of {\"name\", \"weight\", \"properties\"} objects")
        }
        var entries: [Entry] = []
        for (index, event) in events.enumerated() {
            guard case .object(let fields) = event, case .string(let name)? = fields["name"], !name.isEmpty else {
                throw .badInput("--catalogue \(path): events[\(index)] has no \"name\" string")
            }
            var weight = 1
            if case .int(let given)? = fields["weight"] { weight = max(0, given) }
            var properties: [String: JSONValue] = [:]
            if case .object(let templates)? = fields["properties"] { properties = templates }
            entries.append(Entry(name: name, weight: weight, properties: properties))
        }
        guard entries.contains(where: { $0.weight > 0 }) else {
            throw .badInput("--catalogue \(path): every event has weight 0")
        }
        var users = 50
        if case .int(let given)? = root["users"] { users = max(1, given) }
        self.init(entries: entries, users: users)
    }

    init(entries: [Entry], users: Int) {
        self.entries = entries
        self.users = users
    }

    /// One event drawn from the catalogue.
    func draw<R: RandomNumberGenerator>(using random: inout R) -> (name: String, properties: [String: JSONValue], userId: String) {
        let total = entries.reduce(0) { $0 + $1.weight }
        var pick = Int.random(in: 0..<max(total, 1), using: &random)
        var chosen = entries[0]
        for entry in entries where entry.weight > 0 {
            if pick < entry.weight {
                chosen = entry
                break
            }
            pick -= entry.weight
        }
        var properties: [String: JSONValue] = [:]
        for (key, template) in chosen.properties {
            properties[key] = Self.fill(template, using: &random)
        }
        return (chosen.name, properties, "user-\(Int.random(in: 1...users, using: &random))")
    }

    /// A value for a property template.
    static func fill<R: RandomNumberGenerator>(_ template: JSONValue, using random: inout R) -> JSONValue {
        guard case .object(let object) = template, object.count == 1, let (key, spec) = object.first else { return template }
        switch (key, spec) {
        case ("oneOf", .array(let values)) where !values.isEmpty:
            return values.randomElement(using: &random)!
        case ("int", .array(let bounds)):
            guard let (low, high) = intBounds(bounds) else { return template }
            return .int(Int.random(in: low...high, using: &random))
        case ("double", .array(let bounds)):
            guard let (low, high) = doubleBounds(bounds) else { return template }
            return .double((Double.random(in: low...high, using: &random) * 100).rounded() / 100)
        case ("bool", _):
            let chance = doubleValue(spec) ?? 0.5
            return .bool(Double.random(in: 0..<1, using: &random) < chance)
        default:
            return template
        }
    }

    private static func intBounds(_ bounds: [JSONValue]) -> (Int, Int)? {
        guard bounds.count == 2, case .int(let low) = bounds[0], case .int(let high) = bounds[1], low <= high else { return nil }
        return (low, high)
    }

    private static func doubleBounds(_ bounds: [JSONValue]) -> (Double, Double)? {
        guard bounds.count == 2, let low = doubleValue(bounds[0]), let high = doubleValue(bounds[1]), low <= high else { return nil }
        return (low, high)
    }

    private static func doubleValue(_ value: JSONValue) -> Double? {
        switch value {
        case .int(let number): return Double(number)
        case .double(let number): return number
        default: return nil
        }
    }
}
