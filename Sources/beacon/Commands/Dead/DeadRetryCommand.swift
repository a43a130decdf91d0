import ArgumentParser
import Beacon
import BeaconWire

/// `beacon dead retry (ID…|--all)`.
struct DeadRetryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry",
        abstract: "Send dead letters back into the queue, each for its own destination only, exactly once.",
        usage: "beacon dead --db FILE retry (ID|MESSAGEID ... | --all | --destination D | --reason TEXT | --grep TEXT)",
        discussion: """
            The letters leave the dead-letter table in the same transaction that queues their \
            events again, so a second retry of an id finds nothing (exit 1, nothing changes). \
            A serving engine sends them at once (a paused destination when resumed); without \
            one, the next engine to open the store sends them. An argument that is not a \
            whole number is a messageId. With --destination, --reason or --grep, the letters \
            that match (and are among the ids given, if any) are retried, in pages of 10,000.
            """)

    @ParentCommand var dead: DeadCommand

    @Argument(help: "Ids or messageIds of the letters to retry (see 'beacon dead list').")
    var ids: [String] = []

    @Flag(help: "Retry every dead letter.")
    var all = false

    @OptionGroup(title: "Filters")
    var filter: DeadLetterFilter

    func validate() throws { try DeadCommand.validate(ids: ids, all: all, filter: filter, verb: "retry") }

    func run() async throws {
        let access = DeadLetterAccess(db: try dead.store(), timeout: .milliseconds(dead.timeoutMs))
        let done: (count: Int, refused: [JSONValue], route: DeadLetterAccess.Route)
        if let selected = try await DeadCommand.performSelected(ids, filter: filter, access: access, verb: "retry", command: { .deadRetry($0) }) {
            done = selected
        } else {
            let (result, route) = try await access.perform(.deadRetry(try DeadCommand.selection(ids: ids, all: all, verb: "retry")))
            done = (result["count"]?.intValue ?? 0, result["refused"]?.arrayValue ?? [], route)
        }
        let sent = done.route == .engine ? "queued again; the engine sends them now" : "queued again for the next engine on this store"
        Output.line("retried \(done.count) dead letter\(done.count == 1 ? "" : "s") (\(sent))")
        try DeadRetryCommand.reportRefused(["refused": .array(done.refused)])
    }

    /// Letters kept because their destination is gone: one line each on stderr, exit 1.
    static func reportRefused(_ result: JSONValue) throws {
        guard case .array(let refused)? = result["refused"], !refused.isEmpty else { return }
        for letter in refused {
            Output.error("beacon: dead letter \(letter["id"]?.intValue.map(String.init) ?? "?") kept: \(letter["reason"]?.stringValue ?? "")")
        }
        throw CLIError.runtime("\(refused.count) dead letter\(refused.count == 1 ? " was" : "s were") not retried")
    }
}
