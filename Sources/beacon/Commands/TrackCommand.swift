import ArgumentParser
import Beacon
import BeaconWire
import Foundation
import Logging

/// `beacon track`: enqueue events into a store.
struct TrackCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "track",
        abstract: "Enqueue events into a store (durably; nothing is sent).",
        discussion: """
            Properties take JSON values when they parse as JSON (numbers, true, false, null, \
            objects, arrays, quoted strings) and strings otherwise: --prop plan=pro --prop seats=3.
            With --stdin, each line is one event as JSON: {"event": "...", "properties": {...}, \
            "userId": "..."}. Refused lines are reported on stderr with their line number; the \
            others are stored, and the exit code is 2 if any line was refused.
            With --print-ids, each event's messageId is printed on its own line once it is committed.
            If the store stops taking commits (disk full, read-only, file removed) for 5 seconds, \
            track gives up: exit 1 with one line saying how many events were stored and how many \
            were dropped (every printed id is stored).
            """)

    @Option(help: "The store (an SQLite file; created if missing).")
    var db: String

    @Option(help: "The event name.")
    var name: String = "Test Event"

    @Option(name: .customLong("prop"), help: "A property as key=value (repeatable).")
    var properties: [String] = []

    @Option(parsing: .unconditional, help: "How many events to track (0...10000000).")
    var count: Int = 1

    @Option(help: "The userId of the events.")
    var userId: String?

    @Option(help: "The anonymousId of the events.")
    var anonymousId: String?

    @Flag(help: "Read NDJSON events from standard input.")
    var stdin = false

    @Flag(help: "Print each event's messageId once it is committed.")
    var printIds = false

    @Option(help: DurabilityOption.help)
    var durability: DurabilityOption = .processCrash

    @OptionGroup(title: "Queue bounds")
    var bounds: QueueBoundsOptions

    func validate() throws {
        guard Self.counts.contains(count) else { throw ValidationError("--count must be 0...10000000, not \(count)") }
        if stdin && count != 1 { throw ValidationError("--stdin reads events from standard input; leave out --count") }
    }

    /// The range `--count` accepts.
    static let counts = 0...10_000_000
    /// How long track waits for a store that takes no commit before it gives up.
    static let stallLimit: Duration = .seconds(5)

    func run() async throws {
        let parsed = try Self.parse(properties: properties)
        let queue: SQLiteEventQueue
        do {
            // The queue's own fault log is off: a failing store ends the command with one line.
            var logger = Logger(label: "beacon.queue")
            logger.logLevel = .critical
            var configuration = SQLiteEventQueue.Configuration()
            configuration.durability = durability.durability
            bounds.apply(to: &configuration)
            queue = try SQLiteEventQueue(path: db, configuration: configuration, logger: logger)
        } catch {
            throw error.cli(path: db)
        }
        let tracker = Tracker(queue: queue)
        let droppedBefore = queue.depth.totals.dropped
        var printer = IDPrinter(enabled: printIds, queue: queue)
        var accepted = 0
        var refused = 0
        if stdin {
            var lineNumber = 0
            // A line holds one event, which is at most maxEventBytes once encoded: a line
            // many times longer is refused without reading it into memory.
            let (fourEvents, overflow) = tracker.validator.maxEventBytes.multipliedReportingOverflow(by: 4)
            let maxLineBytes = overflow ? Int.max : max(1 << 20, fourEvents)
            var lines = StandardInputLines(maxLineBytes: maxLineBytes)
            while let next = try lines.next() {
                lineNumber += 1
                let line: [UInt8]
                switch next {
                case .text(let text):
                    line = text
                case .tooLong(let bytes):
                    refused += 1
                    Output.error(
                        "beacon: line \(lineNumber): \(bytes) bytes long, over the \(maxLineBytes) a line may hold "
                            + "(an event is at most \(tracker.validator.maxEventBytes) bytes once encoded); skipped")
                    continue
                }
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
                // Checked here, on the raw bytes: decoding them to a String first would
                // replace invalid sequences with U+FFFD and store the repaired text.
                if let offset = UTF8Check.firstInvalidByte(line) {
                    refused += 1
                    Output.error(
                        "beacon: line \(lineNumber): not valid UTF-8 (byte 0x\(String(line[offset], radix: 16, uppercase: true)) at byte \(offset + 1)); "
                            + "re-encode the input as UTF-8")
                    continue
                }
                let receipt: TrackReceipt
                do {
                    receipt = try tracker.track(json: line)
                    accepted += 1
                } catch {
                    refused += 1
                    Output.error("beacon: line \(lineNumber): \(error)")
                    continue
                }
                guard await printer.add(receipt) else { throw await Self.giveUp(queue: queue, db: db, accepted: accepted) }
            }
        } else {
            for index in 0..<count {
                var eventProperties = parsed
                if count > 1 && eventProperties["index"] == nil { eventProperties["index"] = .int(index) }
                let receipt: TrackReceipt
                do {
                    receipt = try tracker.track(name, properties: eventProperties, userId: userId, anonymousId: anonymousId)
                    accepted += 1
                } catch {
                    throw CLIError.badInput("\(error)")
                }
                guard await printer.add(receipt) else { throw await Self.giveUp(queue: queue, db: db, accepted: accepted) }
            }
        }
        guard await printer.finish() else { throw await Self.giveUp(queue: queue, db: db, accepted: accepted) }
        guard await queue.waitForPendingWrites(progressTimeout: Self.stallLimit) else {
            throw await Self.giveUp(queue: queue, db: db, accepted: accepted)
        }
        if queue.droppedFromMemory > 0 {
            // The store recovered, but not before the memory buffer overflowed.
            let report = await queue.close()
            throw CLIError.runtime(
                "\(report.droppedFromMemory) of \(accepted) events were dropped while \(db) was failing ("
                    + (report.recorded ? "counted in its dropped total" : "not counted in the store: it cannot be written")
                    + "); the others are stored")
        }
        if !printIds {
            Output.line("queued \(accepted) event\(accepted == 1 ? "" : "s") in \(db) (depth \(queue.depth.events))")
        }
        let dropped = queue.depth.totals.dropped - droppedBefore
        if dropped > 0 {
            // The queue's bound pushed out its oldest events to take these: say so where the operator looks.
            Output.error(
                "beacon: warning: the queue was full: its \(dropped) oldest event\(dropped == 1 ? " was" : "s were") dropped "
                    + "(counted as dropped; bounds \(bounds.maxQueueEvents) events, \(bounds.maxQueueBytes) bytes: --max-queue-events, --max-queue-bytes)")
        }
        if refused > 0 {
            throw CLIError.badInput("\(refused) of \(accepted + refused) lines refused (see above); the others are stored")
        }
    }

    /// `key=value` pairs into properties.
    static func parse(properties: [String]) throws -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        for pair in properties {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw CLIError.badInput("--prop \(pair.debugDescription) is not key=value (e.g. --prop plan=pro)")
            }
            let key = String(pair[..<equals])
            let text = String(pair[pair.index(after: equals)...])
            do {
                result[key] = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
            } catch {
                result[key] = .string(text)  // not JSON: the value is the text itself
            }
        }
        return result
    }
}

extension TrackCommand {
    /// Ends a run on a store that took no commit for ``stallLimit``: the events still in
    /// memory are dropped and counted (in the store's `dropped` counter if it can still
    /// take that one small write), and the error says how many.
    static func giveUp(queue: SQLiteEventQueue, db: String, accepted: Int) async -> CLIError {
        let cause = queue.currentFailure.map { "\($0.kind.rawValue): \($0.message)" } ?? "a commit did not finish"
        let report = await queue.close()
        let stored = max(0, accepted - report.droppedFromMemory)
        let recorded = report.recorded
            ? "counted in the store's dropped total"
            : "not counted in the store: it cannot be written" + (report.recordError.map { " (\($0.message))" } ?? "")
        return CLIError.runtime(
            "gave up after \(stallLimit.components.seconds) s without a commit to \(db) (\(cause)); "
                + "\(stored) of \(accepted) event\(accepted == 1 ? "" : "s") stored, \(report.droppedFromMemory) dropped (\(recorded))")
    }
}

/// Prints ids in order once their events are committed, a chunk at a time.
struct IDPrinter {
    let enabled: Bool
    let queue: SQLiteEventQueue
    private var pending: [TrackReceipt] = []

    init(enabled: Bool, queue: SQLiteEventQueue) {
        self.enabled = enabled
        self.queue = queue
    }

    /// Holds the receipt; every 256, prints the chunk. `false`: the store stalled.
    mutating func add(_ receipt: TrackReceipt) async -> Bool {
        guard enabled else { return true }
        pending.append(receipt)
        if pending.count >= 256 { return await finish() }
        return true
    }

    /// Waits for the chunk's last event (as long as the store makes progress), then prints
    /// the ids of the chunk's events that are stored, in order. `false`: no commit for
    /// ``TrackCommand/stallLimit``; the ids already stored are printed all the same.
    mutating func finish() async -> Bool {
        guard enabled, let last = pending.last else { return true }
        let result = last.filtered == .keep
            ? await queue.waitForCommit(last.ticket, progressTimeout: TrackCommand.stallLimit) : .committed
        var text = ""
        for receipt in pending where receipt.filtered != .keep || queue.commitState(of: receipt.ticket) == .committed {
            text += receipt.messageId
            text += "\n"
        }
        if !text.isEmpty { Output.raw(String(text.dropLast())) }  // ids this command made: nothing to escape
        pending.removeAll(keepingCapacity: true)
        return result != .timedOut
    }
}
