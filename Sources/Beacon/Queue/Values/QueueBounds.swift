/// How much a queue may hold: past either bound it drops its oldest events (counted as
/// dropped), and `beacon agent`'s ingest refuses new ones.
public struct QueueBounds: Sendable, Hashable {
    /// Events held at most.
    public var maxEvents: Int
    /// Bytes of event JSON held at most.
    public var maxBytes: Int

    /// Room kept below ``maxBytes`` before the queue counts as full: the largest event
    /// ``EventValidator`` accepts by default.
    public static let headroomBytes = 32 * 1024

    public init(maxEvents: Int, maxBytes: Int) {
        self.maxEvents = maxEvents
        self.maxBytes = maxBytes
    }

    /// Whether a queue at `depth` is full: at its event bound, or within
    /// ``headroomBytes`` of its byte bound (the next event may push the oldest out).
    public func isFull(_ depth: QueueDepth) -> Bool {
        isFull(events: depth.events, buffered: depth.buffered, bytes: depth.bytes)
    }

    /// Whether `events` more events of `bytes` bytes fit beside what a queue at `depth`
    /// holds, without pushing anything out.
    public func fits(events: Int, bytes: Int, in depth: QueueDepth) -> Bool {
        let held = depth.events.addingReportingOverflow(depth.buffered)
        let count = held.partialValue.addingReportingOverflow(max(0, events))
        let size = depth.bytes.addingReportingOverflow(max(0, bytes))
        return !held.overflow && !count.overflow && !size.overflow && count.partialValue <= maxEvents && size.partialValue <= maxBytes
    }

    /// ``isFull(_:)`` from the counts alone (`events` committed, `buffered` in memory).
    public func isFull(events: Int, buffered: Int, bytes: Int) -> Bool {
        let held = events.addingReportingOverflow(buffered)
        return held.overflow || held.partialValue >= maxEvents || bytes > maxBytes - min(maxBytes, Self.headroomBytes)
    }
}
