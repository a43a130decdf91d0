import ArgumentParser
import Beacon
import BeaconWire
#if canImport(Glibc)
import Glibc
#endif

/// `beacon dead purge (ID…|--all) [--yes]`.
struct DeadPurgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purge",
        abstract: "Delete dead letters for good (counted as purged).",
        usage: "beacon dead --db FILE purge (ID|MESSAGEID ... | --all | --destination D | --reason TEXT | --grep TEXT) [--yes]",
        discussion: """
            With --all on a terminal while an engine serves the store, asks first unless \
            --yes is given; on a store no engine serves, or from a script, it asks nothing. \
            Prints how many were purged. An argument that is not a whole number is a \
            messageId. With --destination, --reason or --grep, the letters that match (and \
            are among the ids given, if any) are purged.
            """)

    @ParentCommand var dead: DeadCommand

    @Argument(help: "Ids or messageIds of the letters to purge (see 'beacon dead list').")
    var ids: [String] = []

    @Flag(help: "Purge every dead letter.")
    var all = false

    @Flag(help: "Do not ask before purging every dead letter.")
    var yes = false

    @OptionGroup(title: "Filters")
    var filter: DeadLetterFilter

    func validate() throws { try DeadCommand.validate(ids: ids, all: all, filter: filter, verb: "purge") }

    func run() async throws {
        let access = DeadLetterAccess(db: try dead.store(), timeout: .milliseconds(dead.timeoutMs))
        if let selected = try await DeadCommand.performSelected(ids, filter: filter, access: access, verb: "purge", command: { .deadPurge($0) }) {
            Output.line("purged \(selected.count) dead letter\(selected.count == 1 ? "" : "s")")
            return
        }
        let selection = try DeadCommand.selection(ids: ids, all: all, verb: "purge")
        if all, !yes, isatty(STDIN_FILENO) == 1, await access.engineServes() {
            let (listed, _) = try await access.perform(.deadList(limit: 1))
            let total = listed["total"]?.intValue ?? 0
            Output.line("purge all \(total) dead letters of \(try dead.store())? type 'yes' to go on:")
            guard readLine(strippingNewline: true) == "yes" else {
                Output.line("nothing purged")
                return
            }
        }
        let (result, _) = try await access.perform(.deadPurge(selection))
        let count = result["count"]?.intValue ?? 0
        Output.line("purged \(count) dead letter\(count == 1 ? "" : "s")")
    }
}
