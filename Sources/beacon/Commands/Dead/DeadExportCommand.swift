import ArgumentParser
import Beacon
import BeaconWire

/// `beacon dead export [--out FILE]`.
struct DeadExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write every dead letter as NDJSON, oldest first: one object per line with its whole event.",
        usage: "beacon dead --db FILE export [--out FILE]",
        discussion: """
            Each line: {"id", "destination", "reason", "status", "failedAt", "messageId", \
            "name", "event"}. `jq -c .event` gives the events alone. Nothing is removed.
            """)

    @ParentCommand var dead: DeadCommand

    @Option(help: "Write to FILE (created or replaced) instead of stdout.")
    var out: String?

    func validate() throws {
        if let out, let problem = StorePath.fileProblem(out) { throw ValidationError("--out: \(problem)") }
    }

    func run() async throws {
        let access = DeadLetterAccess(db: try dead.store(), timeout: .milliseconds(dead.timeoutMs))
        var lines: [UInt8] = []
        var count = 0
        var after: Int64 = 0
        while true {
            let (page, _) = try await access.perform(.deadExport(after: after, limit: ControlProtocol.deadLetterPage.upperBound))
            guard case .array(let letters)? = page["deadLetters"] else { break }
            for letter in letters {
                if out != nil {
                    lines.append(contentsOf: Array((letter.jsonString + "\n").utf8))
                } else {
                    Output.json(letter.jsonString)
                    // stdout is lost (a full disk): stop, and say so; its reader left (`| head`): stop.
                    guard try Output.check() else { return }
                }
                count += 1
            }
            guard let next = page["next"]?.intValue, Int64(next) > after else { break }
            after = Int64(next)
        }
        guard let out else { return }
        try OutputFile.write(lines, to: out)
        Output.line("exported \(count) dead letter\(count == 1 ? "" : "s") to \(out)")
    }
}
