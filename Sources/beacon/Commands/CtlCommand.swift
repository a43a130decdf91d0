import ArgumentParser
import Beacon
import BeaconWire

/// `beacon ctl`: the dashboard's engine actions for scripts, through the control channel
/// of the engine that serves a store.
struct CtlCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ctl",
        abstract: "Command the running engine that serves a store (through its control socket).",
        discussion: """
            Verbs: status, flush, offline, online, policy TEXT, batch-size N \
            (1...10000), pause [DEST], resume [DEST], retry-now [DEST]. pause stops sending to one destination \
            (every one without DEST); its events stay queued. resume lifts that pause (and a \
            pause for refused credentials) and drains what waited. retry-now [DEST] ends a \
            backoff at once: the failed batch is tried again now, not at its next retry time \
            (flush does not cut a backoff short; it names the destinations still backing \
            off). The engine serving FILE \
            listens on FILE.control (mode 0600; only its own user or root may command it). \
            watch prints the status as JSON at once and then every --interval-ms, one line each, \
            until --count lines or until interrupted. \
            log lists the commands operators gave the store's engines, newest first (the newest --limit \
            of the 1000 kept): when, the peer's uid and pid, the command and its argument, applied or \
            refused with the reason; it reads the store and needs no running engine. \
            Exit 0 when applied, 1 when refused or when no engine serves FILE, 2 on bad usage.
            """)

    /// Whether a verb takes an argument.
    enum Takes { case nothing, required, optional }

    /// The verbs, and what argument each takes.
    static let verbs: [(name: String, takes: Takes)] = [
        ("status", .nothing), ("flush", .nothing), ("offline", .nothing), ("online", .nothing), ("policy", .required),
        ("batch-size", .required), ("pause", .optional), ("resume", .optional), ("retry-now", .optional),
        ("watch", .nothing), ("log", .nothing),
    ]

    @Option(help: "The store whose engine to command (an SQLite file).")
    var db: String

    @Argument(help: "What to do: status, flush, offline, online, policy, batch-size, pause, resume, retry-now, watch, log.")
    var verb: String

    @Argument(help: "The argument of policy (TEXT, e.g. 'count 7'), batch-size (N), or pause/resume/retry-now (a destination's name).")
    var argument: String?

    @Option(parsing: .unconditional, help: "Milliseconds to wait for the engine's answer (1...600000).")
    var timeoutMs: Int = 10_000

    @Option(help: "With watch: milliseconds between snapshots (100...60000).")
    var intervalMs: Int = ControlProtocol.defaultWatchInterval

    @Option(help: "With watch: stop after this many snapshots (1...1000000; default: until interrupted).")
    var count: Int?

    @Option(help: "With log: the newest commands listed at most (1...1000).")
    var limit: Int?

    @Flag(help: """
        Print the engine's answer as JSON. With status: policy, batchSize, offline, depth, deadLetters, queue (events, \
        bytes, maxEvents, maxBytes, full, whenFull: drop oldest or refuse new), destinations with name, state, paused, pausedBy, pending, oldestPendingAge in \
        seconds, lastSuccessAt, stalled, endpoint, code (starting, idle, sending, backing_off, paused_operator, paused_credentials, \
        offline), nextRetryAt, consecutiveFailures, lastError, lastStatus, deliveryRate, drainSeconds (at the net rate), \
        draining, failingSince, failureRate (of the last 20 requests), stalledSince, sinceStart \
        (delivered, deadLettered, dropped); totals (refused: at the bound, since the engine started); rates (accepted, \
        delivered: events per second lately, the console's in and out); eventNames (name, count, rate: the busiest \
        names since the engine started) and otherEventNames; commands. \
        With pause: paused, recorded (false when the store could not record the pause) and a warning. With retry-now: \
        retried (the destinations whose backoff ended), offline. With flush: backingOff (name, nextRetryAt). \
        watch always prints JSON.
        """)
    var json = false

    func validate() throws {
        guard let known = Self.verbs.first(where: { $0.name == verb }) else {
            if verb.hasPrefix("dead-") {
                // The control protocol's dead-letter verbs have their own command, with paging and checks.
                throw ValidationError(
                    "'\(verb)' is for 'beacon dead': use 'beacon dead --db FILE \(verb.dropFirst(5)) ...' (it goes through the engine serving FILE)")
            }
            throw ValidationError("unknown verb '\(verb)'; use one of: \(Self.verbs.map(\.name).joined(separator: ", "))")
        }
        if known.takes == .required && argument == nil {
            // A negative number never arrives here: the parser takes "-1" for an option.
            throw ValidationError(
                verb == "batch-size"
                    ? "'batch-size' needs a whole number from 1 to 10000"
                    : "'\(verb)' needs a flush policy, e.g. 'count 50', 'every 5s' or 'manual'")
        }
        if known.takes == .nothing, let argument { throw ValidationError("'\(verb)' takes no argument, not '\(argument)'") }
        guard (1...600_000).contains(timeoutMs) else { throw ValidationError("--timeout-ms must be 1...600000, not \(timeoutMs)") }
        guard ControlProtocol.watchIntervals.contains(intervalMs) else {
            throw ValidationError("--interval-ms must be 100...60000, not \(intervalMs)")
        }
        if let count, !(1...1_000_000).contains(count) { throw ValidationError("--count must be 1...1000000, not \(count)") }
        if verb != "watch" && (count != nil || intervalMs != ControlProtocol.defaultWatchInterval) {
            throw ValidationError("--interval-ms and --count go with watch only")
        }
        if let limit {
            guard verb == "log" else { throw ValidationError("--limit goes with log only") }
            guard (1...OperatorAction.kept).contains(limit) else { throw ValidationError("--limit must be 1...1000, not \(limit)") }
        }
        if verb == "log" { return }  // read from the store, not a command to the engine
        _ = try command()
    }

    /// `log`: the commands kept in the store, newest first.
    private func log() async throws {
        let actions: [OperatorAction]
        do {
            actions = try await StoreReader(path: db).operatorActions(limit: limit ?? 20)
        } catch {
            throw error.cli(path: db)
        }
        if json {
            Output.json(JSONValue.object(["actions": .array(actions.map(\.json))]).jsonString)
            return
        }
        guard !actions.isEmpty else {
            Output.line("no operator command kept in \(db) (commands through the control channel are kept from 0.6.0 on)")
            return
        }
        Output.line("at                        peer              command                outcome")
        for action in actions {
            let peer = action.peerUID.map { "uid \($0) pid \(action.peerPID.map(String.init) ?? "?")" } ?? "unknown peer"
            let command = action.command + (action.argument.map { " " + PrintableText.line($0) } ?? "")
            let outcome = action.applied ? "applied" : "refused: " + PrintableText.line(action.reason ?? "")
            Output.line(action.at.iso8601.padding(25) + " " + peer.padding(17) + " " + command.padding(22) + " " + outcome)
        }
    }

    func command() throws -> ControlCommand {
        switch verb {
        case "status": return .status
        case "flush": return .flush
        case "offline": return .offline
        case "online": return .online
        case "watch": return .watch(intervalMilliseconds: intervalMs)
        case "policy":
            // Read here as the engine reads it: a policy it would refuse is bad input, exit 2.
            let text = argument ?? ""
            do {
                _ = try FlushPolicy(parsing: text)
            } catch {
                throw ValidationError("\(error)")
            }
            return .policy(text)
        case "pause", "resume", "retry-now":
            if let argument, let problem = ControlProtocol.problem(withName: argument) { throw ValidationError(problem) }
            switch verb {
            case "pause": return .pause(destination: argument)
            case "resume": return .resume(destination: argument)
            default: return .retryNow(destination: argument)
            }
        default:
            guard let text = argument, let size = Int(text) else {
                throw ValidationError("batch-size needs a whole number, not '\(argument ?? "")'")
            }
            guard ControlProtocol.batchSizes.contains(size) else {
                throw ValidationError("batch-size must be 1...10000, not \(size)")
            }
            return .batchSize(size)
        }
    }

    func run() async throws {
        if verb == "watch" { return try await watch() }
        if verb == "log" { return try await log() }
        let response = try await ControlCall.answer(ControlClient(store: db), try command(), within: .milliseconds(timeoutMs))
        switch response.outcome {
        case .failure(let refusal):
            throw CLIError.runtime("the engine refused '\(verb)': \(refusal.reason)")
        case .success(let result):
            if json {
                Output.json(result.jsonString)
            } else if verb == "status" {
                Self.printStatus(result)
            } else if verb == "retry-now" {
                Self.printRetryNow(result, destination: argument)
            } else if verb == "flush" {
                Self.printFlush(result)
            } else if case .array(let names)? = result[verb == "pause" ? "paused" : "resumed"] {
                let list = names.compactMap(\.stringValue).joined(separator: ", ")
                let offline = verb == "resume" && result["offline"] == .bool(true) ? " (the engine is offline: sending waits for 'online')" : ""
                Output.line("\(verb == "pause" ? "paused" : "resumed"): \(list)\(offline)")
                if let warning = result["warning"]?.stringValue {
                    // The pause holds, but not across a restart: say so where the operator looks.
                    Output.error("warning: " + warning)
                }
            } else {
                Output.line("\(verb): applied")
            }
        }
    }

    /// `watch`: one JSON line per snapshot until `--count`, the engine closes, or an interrupt.
    private func watch() async throws {
        let client = ControlClient(store: db)
        let limit = count
        var printed = 0
        var refusal: String?
        do {
            try await client.watch(intervalMilliseconds: intervalMs) { response in
                switch response.outcome {
                case .failure(let reason):
                    refusal = reason.reason
                    return false
                case .success(let result):
                    Output.json(result.jsonString)
                    printed += 1
                    // Stop once the output is lost: its reader left (`| head -3`: exit 0) or
                    // a write failed (exit 1, said by the command's ending).
                    if Output.readerGone || Output.failure != nil { return false }
                    return printed < (limit ?? Int.max)
                }
            }
        } catch {
            throw CLIError.runtime(error.message)
        }
        if let refusal { throw CLIError.runtime("the engine refused 'watch': \(refusal)") }
        if printed == 0 { throw CLIError.runtime("the engine at \(client.socketPath) closed the connection without answering") }
    }

    static func printRetryNow(_ result: JSONValue, destination: String?) {
        let names = result["retried"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let offline = result["offline"] == .bool(true) ? " (the engine is offline: sending waits for 'online')" : ""
        if names.isEmpty {
            Output.line("retry-now: \(destination.map { "'\($0)' is not" } ?? "no destination is") backing off; nothing to retry")
        } else {
            Output.line("retry-now: retrying \(names.joined(separator: ", ")) now\(offline)")
        }
    }

    static func printFlush(_ result: JSONValue) {
        let waiting = result["backingOff"]?.arrayValue ?? []
        guard !waiting.isEmpty else { return Output.line("flush: applied") }
        let list = waiting.map { "\($0["name"]?.stringValue ?? "?") until \($0["nextRetryAt"]?.stringValue ?? "?")" }
        Output.line("flush: applied; backing off (flush waits for it; 'retry-now' ends it): \(list.joined(separator: ", "))")
    }

    /// A rate with one decimal (`12.5/s`); one that is not a finite number of at least zero as `0/s`.
    /// A share from 0 to 1 as a whole percent (`30 %`); one not a finite number as `?`.
    static func percent(_ share: Double) -> String {
        guard share.isFinite else { return "?" }
        return "\(Int(exactly: min(100, max(0, share * 100)).rounded()) ?? 0) %"
    }

    static func perSecond(_ rate: Double) -> String {
        guard rate.isFinite, rate > 0 else { return "0/s" }
        return String(format: "%.1f/s", rate)
    }

    static func printStatus(_ result: JSONValue) {
        guard let report = EngineStatusReport(json: result) else {
            // An engine of another version: show what it said rather than nothing.
            Output.line("the engine's status is not one this beacon reads; as JSON:")
            return Output.json(result.jsonString)
        }
        Output.line("version      \(report.version.map(PrintableText.line) ?? "unknown (an engine before 0.6.0)")")
        Output.line("policy       \(PrintableText.line(report.policy))")
        Output.line("batch size   \(report.batchSize)")
        Output.line("offline      \(report.offline ? "yes" : "no")")
        Output.line("depth        \(report.depth) events")
        if let max = report.queue.maxEvents, let maxBytes = report.queue.maxBytes {
            let refused = report.totals?.refused.map { " (\($0) refused so far)" } ?? ""
            let full = !report.queue.full ? ""
                : report.queue.whenFull == EngineStatusReport.Queue.refusesNew ? "  FULL: new events are refused\(refused)"
                : "  FULL: new events push the oldest out"
            Output.line("queue        \(report.queue.events) of \(max) events, \(report.queue.bytes) of \(maxBytes) bytes\(full)")
        }
        Output.line("dead letters \(report.deadLetters)")
        if let rates = report.rates {
            // The console's `in` and `out`: the observer's, averaged over its last ticks.
            Output.line("rates        in \(Self.perSecond(rates.accepted)), out \(Self.perSecond(rates.delivered)) (events, lately)")
        }
        if let disk = report.disk {
            var line = "disk         store \(disk.storeBytes) bytes, \(disk.freeBytes) of \(disk.totalBytes) bytes free"
            if let full = disk.fullInSeconds { line += ", full in ~\(Int64(exactly: full.rounded(.up)).map(String.init) ?? "?") s at the current inflow" }
            Output.line(line + (disk.low ? " (LOW)" : ""))
        }
        if let bound = report.boundInSeconds {
            Output.line("bound        reached in ~\(Int64(exactly: bound.rounded(.up)).map(String.init) ?? "?") s at the current inflow")
        }
        if let names = report.eventNames, !names.isEmpty {
            // What floods the queue: the busiest names since the engine started.
            var listed = names.map { name in
                "\(PrintableText.line(name.name)) \(name.count)" + (name.rate.map { " (\(Self.perSecond($0)))" } ?? "")
            }
            if let other = report.otherEventNames, other > 0 { listed.append("other \(other)") }
            Output.line("names        " + listed.joined(separator: ", ") + " (events since the engine started)")
        }
        for destination in report.destinations {
            var notes = [PrintableText.line(destination.state)]
            if let rate = destination.deliveryRate, rate.isFinite { notes.append("delivering \(Self.perSecond(rate))") }
            if let age = destination.oldestPendingAge, age.isFinite {
                notes.append("oldest \(Int64(saturating: age.rounded(.down))) s")  // checked: saturating
            }
            if let success = destination.lastSuccessAt { notes.append("last success \(PrintableText.line(success))") }
            if destination.stalled { notes.append("STALLED" + (destination.stalledSince.map { " since \(PrintableText.line($0))" } ?? "")) }
            if let drain = destination.drainSeconds, drain.isFinite { notes.append("drains in ~\(Int64(exactly: drain.rounded(.up)).map(String.init) ?? "?") s") }
            if destination.draining == false { notes.append("not draining (events arrive as fast as they leave)") }
            if let since = destination.failingSince { notes.append("failing since \(PrintableText.line(since))") }
            if let rate = destination.failureRate, rate.isFinite, rate > 0 {
                notes.append("\(Self.percent(rate)) of recent requests failed")
            }
            if let next = destination.nextRetryAt { notes.append("next retry \(PrintableText.line(next))") }
            if destination.consecutiveFailures > 0 {
                notes.append("\(destination.consecutiveFailures) failure\(destination.consecutiveFailures == 1 ? "" : "s") in a row")
            }
            if let error = destination.lastError { notes.append("last error: \(PrintableText.line(error))") }
            Output.line("destination  \(PrintableText.line(destination.name)): \(destination.pending) pending, " + notes.joined(separator: ", "))
        }
    }
}
