import ArgumentParser
import Beacon
import BeaconWire

/// `beacon status`: what a store holds and, when an engine serves it, what that engine is
/// doing (its ``EngineStatusReport``, the same typed status `ctl` and the monitor read).
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show a store's queue depth, dead letters, paused destinations and recent batches, and its engine's state when one serves it.")

    @Option(help: "The store (an SQLite file).")
    var db: String

    @Flag(help: "Print JSON: depth, bytes, deadLetters, destinations (pending, delivered, oldestPending, lastSuccessAt, paused), batches (with destination), totals, and engine: the serving engine's status (as ctl status --json), null when nothing listens on the store's control socket, or {\"error\": reason} when something listens but gave no status it could read (busy, refused, broken).")
    var json = false

    @Option(parsing: .unconditional, help: "How many recent batches to show (0...1000).")
    var batches: Int = 10

    func validate() throws {
        guard (0...1_000).contains(batches) else { throw ValidationError("--batches must be 0...1000, not \(batches)") }
    }

    func run() async throws {
        let status: StoreStatus
        do {
            status = try await StoreReader(path: db).status(batchLimit: batches)
        } catch {
            throw error.cli(path: db)
        }
        // The engine serving the store, if any, says what each destination is doing: the
        // store alone does not know (a backoff, a pause for credentials, offline).
        let probe = await MonitorAttachment.probe(ControlClient(store: db))
        let report = probe.status.flatMap(EngineStatusReport.init(json:))
        // Why no engine state is shown while something answers on the socket: an engine
        // may serve the store, so "none" would be a guess.
        let unknown: String? = switch probe {
        case .noEngine: nil
        case .noStatus(let reason): reason
        case .answered: report == nil ? "the engine answered with a status this build cannot read" : nil
        }
        if json {
            guard case .object(var members) = Self.json(status) else { return }
            members["engine"] = report?.json ?? unknown.map { JSONValue.object(["error": .string($0)]) } ?? .null
            Output.json(JSONValue.object(members).jsonString)
            return
        }
        Output.line("store        \(status.path)")
        Output.line("depth        \(status.depth) events, \(status.bytes) bytes")
        if let oldest = status.oldestEvent { Output.line("oldest       \(oldest.iso8601)") }
        Output.line("dead letters \(status.deadLetterCount) (\(status.totals.deadLettersRetried) retried, \(status.totals.deadLettersPurged) purged over the store's life)")
        let totals = status.totals
        Output.line("lifetime     \(totals.committed) committed, \(totals.delivered) delivered, \(totals.deadLettered) dead-lettered, \(totals.dropped) dropped")
        if let report {
            let version = report.version.map { "beacon \(PrintableText.line($0))" } ?? "a beacon before 0.6.0"
            Output.line("engine       serving: \(report.offline ? "offline" : "online"), policy \(PrintableText.line(report.policy)), batch \(report.batchSize), \(version)")
        } else if let unknown {
            let socket = ControlProtocol.socketPath(forStore: db)
            let reason = unknown.contains(socket) ? unknown : "\(unknown) (on \(socket))"
            Output.line("engine       unknown: \(PrintableText.line(reason)): destination states unknown")
        } else {
            Output.line("engine       none answers on \(PrintableText.line(ControlProtocol.socketPath(forStore: db))): destination states unknown")
        }
        for name in status.destinations.keys.sorted() {
            let depth = status.destinations[name] ?? DestinationDepth()
            var notes = ["\(depth.pending) pending", "\(depth.delivered) delivered"]
            if let oldest = status.oldestPending[name] { notes.append("oldest \(oldest.iso8601)") }
            if let success = status.lastSuccess[name] { notes.append("last success \(success.iso8601)") }
            if status.pausedDestinations.contains(name) { notes.append("paused") }
            if let serving = report?.destinations.first(where: { $0.name == name }) {
                var state = serving.state
                if let next = serving.nextRetryAt { state += " until \(PrintableText.line(next))" }
                if serving.consecutiveFailures > 0 { state += " after \(serving.consecutiveFailures) failure\(serving.consecutiveFailures == 1 ? "" : "s")" }
                if serving.stalled { state += ", STALLED" }
                if let error = serving.lastError { state += " (\(PrintableText.line(error)))" }
                notes.insert(state, at: 0)
            }
            Output.line("destination  \(PrintableText.line(name)): " + notes.joined(separator: ", "))
        }
        if !status.pausedDestinations.isEmpty {
            let them = status.pausedDestinations.count == 1 ? "it" : "them"
            Output.line(
                "paused       \(status.pausedDestinations.sorted().joined(separator: ", ")) (by an operator; an engine on this "
                    + "store starts \(them) paused until 'beacon ctl --db \(status.path) resume' or P)")
        }
        if !status.recentBatches.isEmpty {
            Output.line("")
            let width = max(11, status.recentBatches.map { PrintableText.line($0.destination).count }.max() ?? 0)
            Output.line("batch      \("destination".padding(width)) events    bytes  duration  try  status  outcome        error")
            for batch in status.recentBatches {
                let status = batch.status.map(String.init) ?? "-"
                Output.line(
                    "\(pad(batch.id, 9))  \(PrintableText.line(batch.destination).padding(width))\(pad(batch.events, 7)) \(pad(batch.bytes, 8)) \(pad(tenthsOfMilliseconds(batch.duration), 7))ms \(pad(batch.attempt, 4)) \(pad(status, 7))  \(batch.outcome.rawValue.padding(14)) \(PrintableText.line(batch.error ?? ""))")
            }
        }
    }

    static func json(_ status: StoreStatus) -> JSONValue {
        .object([
            "path": .string(status.path),
            "depth": .int(status.depth),
            "bytes": .int(status.bytes),
            "deadLetters": .int(status.deadLetterCount),
            "deadLettersRetried": .int(status.totals.deadLettersRetried),
            "deadLettersPurged": .int(status.totals.deadLettersPurged),
            "oldestEvent": status.oldestEvent.map { .string($0.iso8601) } ?? .null,
            "pausedDestinations": .array(status.pausedDestinations.sorted().map { .string($0) }),
            "destinations": .array(status.destinations.keys.sorted().map { name in
                let depth = status.destinations[name] ?? DestinationDepth()
                return [
                    "name": .string(name), "pending": .int(depth.pending), "delivered": .int(depth.delivered),
                    "deadLettered": .int(depth.deadLettered), "dropped": .int(depth.dropped),
                    "oldestPending": status.oldestPending[name].map { .string($0.iso8601) } ?? .null,
                    "lastSuccessAt": status.lastSuccess[name].map { .string($0.iso8601) } ?? .null,
                    "paused": .bool(status.pausedDestinations.contains(name)),
                ]
            }),
            "totals": [
                "committed": .int(status.totals.committed), "delivered": .int(status.totals.delivered),
                "deadLettered": .int(status.totals.deadLettered), "dropped": .int(status.totals.dropped),
            ],
            "batches": .array(status.recentBatches.map { batch in
                [
                    "id": .int(Int(batch.id)), "destination": .string(batch.destination), "startedAt": .string(batch.startedAt.iso8601),
                    "durationMs": .double(tenthsOfMilliseconds(batch.duration)), "events": .int(batch.events), "bytes": .int(batch.bytes),
                    "attempt": .int(batch.attempt), "status": batch.status.map { .int($0) } ?? .null,
                    "outcome": .string(batch.outcome.rawValue), "error": batch.error.map { .string($0) } ?? .null,
                ]
            }),
            "recentDeadLetters": .array(status.recentDeadLetters.map { letter in
                [
                    "messageId": .string(letter.event.messageId), "name": .string(letter.event.name),
                    "reason": .string(letter.reason), "destination": .string(letter.destination),
                    "status": letter.status.map { .int($0) } ?? .null, "failedAt": .string(letter.failedAt.iso8601),
                ]
            }),
        ])
    }
}

func pad(_ value: some CustomStringConvertible, _ width: Int) -> String {
    let text = value.description
    return text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}

/// Milliseconds, rounded to a tenth, for the history table and its JSON.
func tenthsOfMilliseconds(_ duration: Duration) -> Double {
    (duration.inMillisecondsDouble * 10).rounded() / 10
}
