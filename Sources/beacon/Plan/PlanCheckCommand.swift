import ArgumentParser
import Beacon
import BeaconPlan
import BeaconWire
#if canImport(Glibc)
import Glibc
#endif

/// `beacon plan check PLAN [FILE…|--db STORE]`: recorded events checked against a plan
/// offline, as the plan's policy would treat them, for a developer or a CI job.
struct PlanCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check recorded events against a tracking plan: exit 1 listing every violation.",
        discussion: """
            Reads newline-delimited JSON: one event per line (a Segment event: type, event or \
            name, properties, traits, context), or a Segment batch ({"batch": [...]}) per line; \
            `-` or no FILE reads standard input. With --db, reads the events still queued in a \
            store instead (read-only, whether or not an engine serves it). Each violating event \
            is listed with its place (FILE:LINE, or the store's sequence number), what the plan \
            would do with it (allow, omit its unplanned properties, block) and each violation's \
            path and reason; then the totals by event. Exit 0 when every event holds, 1 when \
            any breaks the plan or a line is not an event, 2 when the plan or a file cannot be read.
            """)

    @Argument(help: "The plan: a Beacon plan (JSON) or a Segment tracking plan's rules.")
    var plan: String

    @Argument(help: "Files of newline-delimited JSON events; `-` (or none) is standard input.")
    var files: [String] = []

    @Option(help: "Check the events still queued in this store (an SQLite file) instead of files.")
    var db: String?

    @Flag(help: "Print JSON: plan, checked, holds, violating, actions, events (per planned event), findings, unreadable.")
    var json = false

    @Option(help: "Also write the result as JUnit XML to this file (one test case per planned event).")
    var junit: String?

    /// The longest line read: an event is at most 512 KiB once encoded; a batch line may hold many.
    static let maxLineBytes = 64 << 20

    func validate() throws {
        if db != nil && !files.isEmpty { throw ValidationError("give event files or --db, not both") }
        if let db, db.isEmpty { throw ValidationError("--db must not be empty") }
        if let junit, junit.isEmpty { throw ValidationError("--junit must not be empty") }
    }

    func run() async throws {
        let loaded = try PlanLintCommand.load(plan)
        var report = PlanCheckReport(plan: loaded)
        if let db {
            try await Self.check(store: db, into: &report)
        } else {
            for file in files.isEmpty ? ["-"] : files { try Self.check(file: file, into: &report) }
        }
        // The report first: a JUnit file that cannot be written afterwards does not hide it.
        if json {
            Output.json(report.json.jsonString)
        } else {
            Output.raw(report.text)  // its outside text escaped line by line (PrintableText.line)
        }
        if let junit { try OutputFile.write(Array(report.junit.utf8), to: junit) }
        if !report.holds { throw CLIError.runtime(report.failureSummary) }
    }

    /// Checks each line of `file` (`-`: standard input).
    static func check(file: String, into report: inout PlanCheckReport) throws {
        let descriptor: Int32
        if file == "-" {
            descriptor = 0
        } else {
            descriptor = open(file, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw CLIError.badInput("cannot open \(file): \(String(cString: strerror(errno)))") }
        }
        defer { if descriptor != 0 { close(descriptor) } }
        let name = file == "-" ? "stdin" : file
        var lines = StandardInputLines(maxLineBytes: maxLineBytes, descriptor: descriptor, name: name == "stdin" ? "standard input" : file)
        var number: Int64 = 0
        while let next = try lines.next() {
            number += 1
            let place = PlanCheckReport.Place(source: name, line: number)
            switch next {
            case .tooLong(let bytes):
                report.addUnreadable(at: place, reason: "\(bytes) bytes long, over the \(maxLineBytes) a line may hold")
            case .text(let line):
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
                report.add(line: line, at: place)
            }
        }
    }

    /// Checks the events still queued in `store`, oldest first, a page at a time.
    static func check(store: String, into report: inout PlanCheckReport) async throws {
        let reader: StoreReader
        do {
            reader = try StoreReader(path: store)
        } catch {
            throw error.cli(path: store)
        }
        var after: Int64?
        while true {
            let page: PendingEventsPage
            do {
                page = try await reader.pendingEvents(PendingEventQuery(limit: PendingEventQuery.limits.upperBound, after: after))
            } catch {
                throw error.cli(path: store)
            }
            for event in page.head {
                report.add(line: event.payload, at: PlanCheckReport.Place(source: store, line: event.sequence))
            }
            guard page.head.count == PendingEventQuery.limits.upperBound, let last = page.head.last else { return }
            after = last.sequence
        }
    }
}
