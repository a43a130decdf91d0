import ArgumentParser
import Beacon
import BeaconWire

/// `beacon events`: the oldest and newest events still in a store's queue, with their
/// JSON, read without writing (a running engine and its drain never wait for it).
struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "List the oldest and newest events still pending in a store's queue: sequence, time, name, messageId, size, JSON.",
        discussion: """
            Reads the store without writing to it, whether or not an engine serves it: \
            the head and the tail come from each end of the log by its key, so a page of \
            a queue of millions costs about as much as one of ten. Without --destination, \
            an event is listed while any destination still has to deliver it.
            """)

    @Option(help: "The store (an SQLite file).")
    var db: String

    @Option(help: "Only the events this destination still has to deliver.")
    var destination: String?

    @Option(help: "Only events whose JSON contains this text (as stored, case-sensitive).")
    var grep: String?

    @Option(help: "Events listed at most from each end of the queue (1...1000).")
    var limit = 10

    @Flag(help: "Print JSON: pending, matching (null: more than shown, uncounted), head and tail (sequence, messageId, name, createdAt, bytes, event).")
    var json = false

    func validate() throws {
        guard PendingEventQuery.limits.contains(limit) else { throw ValidationError("--limit must be 1...1000, not \(limit)") }
        if let grep, grep.utf8.count > 4_096 { throw ValidationError("--grep must be at most 4096 bytes, not \(grep.utf8.count)") }
        if let destination, destination.isEmpty { throw ValidationError("--destination must not be empty") }
    }

    func run() async throws {
        let page: PendingEventsPage
        do {
            page = try await StoreReader(path: db).pendingEvents(PendingEventQuery(destination: destination, containing: grep, limit: limit))
        } catch {
            throw error.cli(path: db)
        }
        if let destination, !page.destinations.contains(destination) {
            let shown = destination.count > 60 ? String(destination.prefix(60)) + "…" : destination
            let known = page.destinations.isEmpty ? "none yet (an engine registers them when it starts)" : page.destinations.joined(separator: ", ")
            throw CLIError.badInput("no destination named \"\(PrintableText.line(shown))\" in \(db); it has: \(known)")
        }
        if json {
            Output.json(JSONValue.object([
                "pending": .int(page.pending),
                "matching": page.matching.map { .int($0) } ?? .null,
                "head": .array(page.head.map(\.json)),
                "tail": .array(page.tail.map(\.json)),
                "destinations": .array(page.destinations.map { .string($0) }),
            ]).jsonString)
            return
        }
        let whose = destination.map { "for \(PrintableText.line($0))" } ?? "for any destination"
        guard !page.events.isEmpty else {
            Output.line(page.pending == 0
                ? "no events pending \(whose)"
                : "none of the \(page.pending) events pending \(whose) contains \"\(PrintableText.line(grep ?? ""))\"")
            return
        }
        Output.line("seq          accepted at               name                 bytes  messageId / JSON")
        for event in page.head { line(event) }
        if page.hasGap {
            let between = page.matching.map { "\($0 - page.events.count) more" } ?? "more, not counted,"
            Output.line("… \(between) between the oldest \(page.head.count) and the newest \(page.tail.count)")
        }
        for event in page.tail { line(event) }
        let matched = grep == nil ? "" : page.matching.map { ", \($0) contain the text" } ?? ", more contain the text than shown"
        Output.line("\(page.pending) event\(page.pending == 1 ? "" : "s") pending \(whose)\(matched)")
    }

    private func line(_ event: PendingEventRecord) {
        let name = PrintableText.line(event.name)
        let shownName = name.count > 20 ? String(name.prefix(19)) + "…" : name
        Output.line(
            String(event.sequence).padding(12) + " " + event.createdAt.iso8601.padding(25) + " " + shownName.padding(20) + " "
                + pad(event.payload.count, 6) + "  " + PrintableText.line(event.messageId))
        let text = PrintableText.line(String(decoding: event.payload, as: UTF8.self))
        Output.line("             " + (text.count > 200 ? String(text.prefix(199)) + "…" : text))
    }
}
