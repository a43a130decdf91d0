import ArgumentParser
import Beacon

/// `--max-queue-events` and `--max-queue-bytes`: the queue's bounds, for `agent`, `demo`
/// and `track`. Past them the queue drops its oldest events (counted as dropped), and the
/// agent's ingest refuses new ones with 503 `queue_full` instead.
struct QueueBoundsOptions: ParsableArguments {
    static let defaults = SQLiteEventQueue.Configuration()
    /// The range `--max-queue-events` accepts.
    static let events = 1...100_000_000
    /// The range `--max-queue-bytes` accepts: 64 KiB to 1 TiB.
    static let bytes = (64 << 10)...(1 << 40)

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Events the queue holds at most (1...100000000).",
        discussion: "Past it the oldest events are dropped and counted (the agent's ingest refuses new ones with 503 queue_full instead)."))
    var maxQueueEvents: Int = Self.defaults.maxQueuedEvents

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Bytes of event JSON the queue holds at most (65536...1099511627776, i.e. 64 KiB to 1 TiB)."))
    var maxQueueBytes: Int = Self.defaults.maxQueuedBytes

    func validate() throws {
        guard Self.events.contains(maxQueueEvents) else {
            throw ValidationError("--max-queue-events must be \(Self.events.lowerBound)...\(Self.events.upperBound), not \(maxQueueEvents)")
        }
        guard Self.bytes.contains(maxQueueBytes) else {
            throw ValidationError("--max-queue-bytes must be \(Self.bytes.lowerBound)...\(Self.bytes.upperBound), not \(maxQueueBytes)")
        }
    }

    /// Sets the bounds in `configuration`.
    func apply(to configuration: inout SQLiteEventQueue.Configuration) {
        configuration.maxQueuedEvents = maxQueueEvents
        configuration.maxQueuedBytes = maxQueueBytes
    }
}
