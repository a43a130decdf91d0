import ArgumentParser
import Beacon
import BeaconWire

/// `beacon dead show ID`.
struct DeadShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one dead letter with its whole event (JSON on one line).",
        usage: "beacon dead --db FILE show ID")

    @ParentCommand var dead: DeadCommand

    @Argument(help: "The dead letter's id (see 'beacon dead list').")
    var id: String

    func validate() throws { _ = try DeadCommand.ids([id]) }

    func run() async throws {
        let access = DeadLetterAccess(db: try dead.store(), timeout: .milliseconds(dead.timeoutMs))
        let (result, _) = try await access.perform(.deadShow(id: try DeadCommand.ids([id])[0]))
        Output.json(result.jsonString)
    }
}
