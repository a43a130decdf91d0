import ArgumentParser
import Beacon
import BeaconWire
import Foundation

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

    func validate() throws {
        guard Self.counts.contains(count) else { throw ValidationError("--count must be 0...10000000, not \(count)") }
        if stdin && count != 1 { throw ValidationError("--stdin reads events from standard input; leave out --count") }
    }

    /// The range `--count` accepts.
    static let counts = 0...10_000_000

    func run() async throws {
        let parsed = try Self.parse(properties: properties)
        let queue: SQLiteEventQueue
        do {
            queue = try SQLiteEventQueue(path: db)
        } catch {
            throw error.cli(path: db)
        }
        let tracker = Tracker(queue: queue)
        var printer = IDPrinter(enabled: printIds)
        var accepted = 0
        var refused = 0
        if stdin {
            var lineNumber = 0
            var lines = StandardInputLines()
            while let line = try lines.next() {
                lineNumber += 1
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
                do {
                    try await printer.add(tracker.track(json: line))
                    accepted += 1
                } catch {
                    refused += 1
                    Output.error("beacon: line \(lineNumber): \(error)")
                }
            }
        } else {
            for index in 0..<count {
                var eventProperties = parsed
                if count > 1 && eventProperties["index"] == nil { eventProperties["index"] = .int(index) }
                do {
                    try await printer.add(tracker.track(name, properties: eventProperties, userId: userId, anonymousId: anonymousId))
                    accepted += 1
                } catch {
                    throw CLIError.badInput("\(error)")
                }
            }
        }
        try await printer.finish()
        await queue.waitForPendingWrites()
        if !printIds {
            Output.line("queued \(accepted) event\(accepted == 1 ? "" : "s") in \(db) (depth \(queue.depth.events))")
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

/// Prints ids in order once their events are committed, a chunk at a time.
struct IDPrinter {
    let enabled: Bool
    private var pending: [TrackReceipt] = []

    init(enabled: Bool) { self.enabled = enabled }

    mutating func add(_ receipt: TrackReceipt) async throws {
        guard enabled else { return }
        pending.append(receipt)
        if pending.count >= 256 { try await finish() }
    }

    mutating func finish() async throws {
        guard enabled, let last = pending.last else { return }
        do {
            try await last.committed()
        } catch {
            throw CLIError.runtime("\(error)")
        }
        var text = ""
        for receipt in pending {
            text += receipt.messageId
            text += "\n"
        }
        FileHandle.standardOutput.write(Data(text.utf8))
        pending.removeAll(keepingCapacity: true)
    }
}
