import ArgumentParser
import Beacon
import BeaconWire

/// `beacon dead list`.
struct DeadListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the dead letters, newest first: id, destination, HTTP status, attempts, when, reason, payload preview.",
        // The store comes before the verb (an option of `dead`): say so where users look.
        usage: "beacon dead --db FILE list [--limit N] [--json] [--destination D] [--reason TEXT] [--grep TEXT]")

    @ParentCommand var dead: DeadCommand

    @Option(help: "Letters shown at most (1...1000).")
    var limit = 100

    @Flag(help: "Print JSON: total, and deadLetters (id, destination, reason, status, failedAt, messageId, name, preview, attempts).")
    var json = false

    @OptionGroup(title: "Filters (total is then the number that match)")
    var filter: DeadLetterFilter

    func validate() throws {
        guard ControlProtocol.deadLetterPage.contains(limit) else { throw ValidationError("--limit must be 1...1000, not \(limit)") }
    }

    func run() async throws {
        let access = DeadLetterAccess(db: try dead.store(), timeout: .milliseconds(dead.timeoutMs))
        let result: JSONValue
        if filter.isActive {
            // Newest first, as without a filter; the preview replaces the whole event.
            let matching = try await filter.letters(through: access)
            let shown = matching.suffix(limit).reversed().map { letter -> JSONValue in
                guard case .object(var members) = letter else { return letter }
                let event = members.removeValue(forKey: "event")?.jsonString ?? members.removeValue(forKey: "eventText")?.stringValue ?? ""
                members["eventText"] = nil
                members["history"] = nil
                members["preview"] = .string(event.count > 120 ? String(event.prefix(119)) + "…" : event)
                return .object(members)
            }
            result = ["total": .int(matching.count), "deadLetters": .array(Array(shown))]
        } else {
            (result, _) = try await access.perform(.deadList(limit: limit))
        }
        if json {
            Output.json(result.jsonString)
            return
        }
        guard case .array(let letters)? = result["deadLetters"], !letters.isEmpty else {
            Output.line("no dead letters")
            return
        }
        Output.line("id       destination   http  tries failed at                 reason / payload")
        for letter in letters {
            let id = letter["id"]?.intValue.map(String.init) ?? "?"
            let status = letter["status"]?.intValue.map(String.init) ?? "-"
            let destination = PrintableText.line(letter["destination"]?.stringValue ?? "?")
            Output.line(
                id.padding(toLength: max(8, id.count), withPad: " ", startingAt: 0) + " "
                    + destination.padding(toLength: max(13, destination.count), withPad: " ", startingAt: 0) + " "
                    + status.padding(toLength: 5, withPad: " ", startingAt: 0) + " "
                    + String(letter["attempts"]?.intValue ?? 1).padding(toLength: 5, withPad: " ", startingAt: 0) + " "
                    + (letter["failedAt"]?.stringValue ?? "?").padding(toLength: 25, withPad: " ", startingAt: 0) + " "
                    + PrintableText.line(letter["reason"]?.stringValue ?? ""))
            Output.line("         " + PrintableText.line(letter["preview"]?.stringValue ?? ""))
        }
        let total = result["total"]?.intValue ?? letters.count
        Output.line(total > letters.count ? "\(total) dead letters (the newest \(letters.count) shown)" : "\(total) dead letter\(total == 1 ? "" : "s")")
    }
}
