import ArgumentParser
import Beacon
import BeaconWire

/// `beacon dead`: the dead-letter table of a store, through the engine serving it when
/// one does, on the store itself otherwise.
struct DeadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dead",
        abstract: "List, show, retry, purge or export the dead letters of a store.",
        discussion: """
            Through the engine serving FILE when one does (its control socket FILE.control), \
            else on the store directly. A dead letter is an event a destination refused for \
            good; its id is stable. retry sends it back into the queue for its destination \
            only, once however often it is called; purge deletes it. Exit 0 when done, 1 when \
            refused (an id not in the store: nothing changes), 2 on bad usage.
            """,
        subcommands: [DeadListCommand.self, DeadShowCommand.self, DeadRetryCommand.self, DeadPurgeCommand.self, DeadExportCommand.self])

    // Optional for the parser only: a parent's parse error (a missing option, a failed
    // `validate()`) makes `beacon dead retry --help` print the parent's help instead of
    // the subcommand's. The subcommands require it through `store()`.
    @Option(help: "The store (an SQLite file). Required.")
    var db: String?

    /// The store given with `--db`; exit 2 naming the option when it is missing.
    func store() throws -> String {
        guard let db, !db.isEmpty else { throw ValidationError("missing '--db FILE': the store whose dead letters to read") }
        return db
    }

    @Option(parsing: .unconditional, help: "Milliseconds to wait for a serving engine's answer (1...600000).")
    var timeoutMs: Int = 10_000

    func validate() throws {
        guard (1...600_000).contains(timeoutMs) else { throw ValidationError("--timeout-ms must be 1...600000, not \(timeoutMs)") }
    }

    /// Reads the ids given on the command line, or exits 2 naming the bad one.
    static func ids(_ texts: [String]) throws -> [Int64] {
        try texts.map { text in
            guard let id = Int64(text), ControlProtocol.deadLetterIDs.contains(id) else {
                let shown = PrintableText.line(text.count > 40 ? String(text.prefix(40)) + "…" : text)
                throw ValidationError("'\(shown)' is not a dead-letter id; ids are whole numbers in 1...\(ControlProtocol.deadLetterIDs.upperBound) (see 'beacon dead list')")
            }
            return id
        }
    }

    /// The checks of `retry` and `purge`: numeric ids alone go straight to the engine;
    /// messageIds or a filter are looked up first (``DeadLetterFilter``). Exit 2 on a mix
    /// with `--all` or nothing to act on.
    static func validate(ids: [String], all: Bool, filter: DeadLetterFilter, verb: String) throws {
        guard filter.isActive || ids.contains(where: { Int64($0) == nil }) else {
            _ = try selection(ids: ids, all: all, verb: verb)
            return
        }
        if all { throw ValidationError("\(verb): give ids, messageIds or filters, or --all, not both") }
        for text in ids where text.isEmpty || text.utf8.count > 1024 || text.contains("\0") {
            throw ValidationError("\(verb): '\(PrintableText.line(String(text.prefix(40))))' is neither an id nor a messageId (1 to 1024 bytes, no NUL)")
        }
    }

    /// Retries or purges the letters `filter` and the given ids or messageIds select, in
    /// pages of ``ControlProtocol/maxIDs``. `nil` when plain ids or `--all` were given (the
    /// caller sends those as they are).
    static func performSelected(
        _ texts: [String], filter: DeadLetterFilter, access: DeadLetterAccess, verb: String,
        command: (DeadLetterSelection) -> ControlCommand
    ) async throws -> (count: Int, refused: [JSONValue], route: DeadLetterAccess.Route)? {
        guard let chosen = try await filter.selectedIDs(texts, through: access) else { return nil }
        guard !chosen.isEmpty else { throw CLIError.runtime("no dead letter matches; nothing to \(verb) (see 'beacon dead list')") }
        var count = 0
        var refused: [JSONValue] = []
        var route = DeadLetterAccess.Route.store
        for start in stride(from: 0, to: chosen.count, by: ControlProtocol.maxIDs) {
            let page = Array(chosen[start..<min(chosen.count, start + ControlProtocol.maxIDs)])
            let (result, answered) = try await access.perform(command(.ids(page)))
            count += result["count"]?.intValue ?? 0
            refused += result["refused"]?.arrayValue ?? []
            route = answered
        }
        return (count, refused, route)
    }

    /// `ID…` or `--all`, exactly one of them.
    static func selection(ids: [String], all: Bool, verb: String) throws -> DeadLetterSelection {
        if all && !ids.isEmpty { throw ValidationError("\(verb): give ids or --all, not both") }
        if all { return .all }
        guard !ids.isEmpty else { throw ValidationError("\(verb): give the ids to \(verb) (see 'beacon dead list'), or --all") }
        guard ids.count <= ControlProtocol.maxIDs else { throw ValidationError("\(verb): at most \(ControlProtocol.maxIDs) ids at once; use --all") }
        return .ids(try Self.ids(ids))
    }
}
