import ArgumentParser
import Beacon
import BeaconWire

/// `beacon dead retry (ID…|--all)`.
struct DeadRetryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry",
        abstract: "Send dead letters back into the queue, each for its own destination only, exactly once.",
        usage: "beacon dead --db FILE retry (ID ...|--all)",
        discussion: """
            The letters leave the dead-letter table in the same transaction that queues their \
            events again, so a second retry of an id finds nothing (exit 1, nothing changes). \
            A serving engine sends them at once (a paused destination when resumed); without \
            one, the next engine to open the store sends them.
            """)

    @ParentCommand var dead: DeadCommand

    @Argument(help: "Ids of the letters to retry (see 'beacon dead list').")
    var ids: [String] = []

    @Flag(help: "Retry every dead letter.")
    var all = false

    func validate() throws { _ = try DeadCommand.selection(ids: ids, all: all, verb: "retry") }

    func run() async throws {
        let access = DeadLetterAccess(db: try dead.store(), timeout: .milliseconds(dead.timeoutMs))
        let (result, route) = try await access.perform(.deadRetry(try DeadCommand.selection(ids: ids, all: all, verb: "retry")))
        let count = result["count"]?.intValue ?? 0
        let sent = route == .engine ? "queued again; the engine sends them now" : "queued again for the next engine on this store"
        Output.line("retried \(count) dead letter\(count == 1 ? "" : "s") (\(sent))")
        try DeadRetryCommand.reportRefused(result)
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
