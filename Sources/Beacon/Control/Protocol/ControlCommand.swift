import BeaconWire

/// What a control request asks the engine to do.
public enum ControlCommand: Sendable, Hashable {
    /// A JSON snapshot: policy, batch size, offline, depth, destinations, command counts.
    case status
    /// Drain the queue now, to every destination.
    case flush
    /// Stop sending (events keep queueing).
    case offline
    /// Start sending again and drain the backlog.
    case online
    /// Set the flush policy from its text (`count 7`, `every 5s`, `manual`...).
    case policy(String)
    /// Set the batch size (within ``ControlProtocol/batchSizes``).
    case batchSize(Int)
    /// Pause one destination (by name), or every one (`nil`): its events stay queued.
    case pause(destination: String?)
    /// Resume one destination, or every one (`nil`): lifts an operator's pause and a pause
    /// for refused credentials, and drains what waited.
    case resume(destination: String?)
    /// End the backoff of one destination, or of every one (`nil`): the failed batch is
    /// tried again now. Pauses and offline stay.
    case retryNow(destination: String?)
    /// Dead letters, newest first, at most `limit` (within ``ControlProtocol/deadLetterPage``),
    /// each with a payload preview.
    case deadList(limit: Int)
    /// One dead letter with its whole event.
    case deadShow(id: Int64)
    /// Send dead letters back into the queue, each for its own destination, once.
    case deadRetry(DeadLetterSelection)
    /// Delete dead letters.
    case deadPurge(DeadLetterSelection)
    /// Dead letters with their whole events, oldest first, after id `after`: one page of
    /// at most `limit` letters and about ``ControlProtocol/exportPageBytes``.
    case deadExport(after: Int64, limit: Int)
    /// Stream `status` results on this connection, one every `intervalMilliseconds`
    /// (within ``ControlProtocol/watchIntervals``), until the client closes it.
    case watch(intervalMilliseconds: Int)

    /// The command's name on the wire.
    public var name: String {
        switch self {
        case .status: return "status"
        case .flush: return "flush"
        case .offline: return "offline"
        case .online: return "online"
        case .policy: return "policy"
        case .batchSize: return "batch-size"
        case .pause: return "pause"
        case .resume: return "resume"
        case .retryNow: return "retry-now"
        case .deadList: return "dead-list"
        case .deadShow: return "dead-show"
        case .deadRetry: return "dead-retry"
        case .deadPurge: return "dead-purge"
        case .deadExport: return "dead-export"
        case .watch: return "watch"
        }
    }

    /// The command's argument on the wire, if it has one.
    public var argument: JSONValue? {
        switch self {
        case .policy(let text): return .string(text)
        case .batchSize(let size): return .int(size)
        case .pause(let destination), .resume(let destination), .retryNow(let destination): return destination.map { .string($0) }
        case .deadList(let limit): return ["limit": .int(limit)]
        case .deadShow(let id): return .int(Int(id))
        case .deadRetry(let selection), .deadPurge(let selection):
            switch selection {
            case .all: return "all"
            case .ids(let ids): return .array(ids.map { .int(Int($0)) })
            case .matching(let query):
                var members: [String: JSONValue] = [:]
                members["destination"] = query.destination.map { .string($0) }
                members["reason"] = query.reason.map { .string($0) }
                members["text"] = query.text.map { .string($0) }
                return ["matching": .object(members)]
            }
        case .deadExport(let after, let limit): return ["after": .int(Int(after)), "limit": .int(limit)]
        case .watch(let interval): return ["intervalMs": .int(interval)]
        case .status, .flush, .offline, .online: return nil
        }
    }

    /// Whether it changes nothing (kept out of the info log: a monitor asks often).
    public var isRead: Bool {
        switch self {
        case .status, .deadList, .deadShow, .deadExport, .watch: return true
        case .flush, .offline, .online, .policy, .batchSize, .pause, .resume, .retryNow, .deadRetry, .deadPurge: return false
        }
    }
}
