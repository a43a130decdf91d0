import ArgumentParser
import Beacon
import BeaconWire

/// `--destination`, `--reason` and `--grep`: which dead letters `list`, `retry` and `purge`
/// take, found by reading every letter (`dead-export` pages, through the engine or on the
/// store). A messageId given where an id goes is found the same way.
struct DeadLetterFilter: ParsableArguments {
    @Option(help: "Only the letters of this destination.")
    var destination: String?

    @Option(help: "Only the letters whose reason contains this text (any case), e.g. a code such as event_too_large.")
    var reason: String?

    @Option(help: "Only the letters whose messageId, event name, reason or event JSON contains this text (any case).")
    var grep: String?

    /// Whether any filter was given.
    var isActive: Bool { destination != nil || reason != nil || grep != nil }

    func validate() throws {
        for (flag, value) in [("--destination", destination), ("--reason", reason), ("--grep", grep)] {
            guard let value else { continue }
            guard !value.isEmpty, value.utf8.count <= 1024, !value.contains("\0") else {
                throw ValidationError("\(flag) takes 1 to 1024 bytes of text without NUL")
            }
        }
    }

    /// Whether `letter` (as `dead-export` gives it) passes every filter.
    func matches(_ letter: JSONValue) -> Bool {
        if let destination, letter["destination"]?.stringValue != destination { return false }
        if let reason, !(letter["reason"]?.stringValue ?? "").lowercased().contains(reason.lowercased()) { return false }
        if let grep {
            let needle = grep.lowercased()
            let fields = [letter["messageId"]?.stringValue, letter["name"]?.stringValue, letter["reason"]?.stringValue,
                          letter["event"]?.jsonString, letter["eventText"]?.stringValue]
            guard fields.contains(where: { $0?.lowercased().contains(needle) == true }) else { return false }
        }
        return true
    }

    /// Every letter that passes, and whose messageId is in `messageIds` when given, oldest first.
    func letters(through access: DeadLetterAccess, messageIds: Set<String>? = nil) async throws -> [JSONValue] {
        var found: [JSONValue] = []
        var after: Int64 = 0
        while true {
            let (page, _) = try await access.perform(.deadExport(after: after, limit: ControlProtocol.deadLetterPage.upperBound))
            for letter in page["deadLetters"]?.arrayValue ?? [] where matches(letter) {
                if let messageIds, !messageIds.contains(letter["messageId"]?.stringValue ?? "") { continue }
                found.append(letter)
            }
            guard let next = page["next"]?.intValue, Int64(next) > after else { return found }
            after = Int64(next)
        }
    }

    /// The ids a `retry` or `purge` acts on: the numeric ids given, the letters of the
    /// messageIds given, and with a filter only those that pass it (every letter that
    /// passes when no id is given). `nil` when neither ids nor a filter were given.
    func selectedIDs(_ texts: [String], through access: DeadLetterAccess) async throws -> [Int64]? {
        guard isActive || texts.contains(where: { Int64($0) == nil }) else { return nil }
        var numeric = Set<Int64>()
        var messageIds = Set<String>()
        for text in texts {
            if let id = Int64(text), ControlProtocol.deadLetterIDs.contains(id) { numeric.insert(id) } else { messageIds.insert(text) }
        }
        let named = texts.isEmpty ? nil : messageIds
        let letters = try await letters(through: access, messageIds: nil)
        return letters.compactMap { letter -> Int64? in
            guard let id = letter["id"]?.intValue.map(Int64.init) else { return nil }
            if let named {
                guard numeric.contains(id) || named.contains(letter["messageId"]?.stringValue ?? "") else { return nil }
            }
            return id
        }
    }
}
