import BeaconWire

/// The dead-letter commands of the control channel, carried out on a queue: by a serving
/// engine, and by `beacon dead` on a store no engine serves. One implementation, so both
/// answer alike.
public enum DeadLetterCommands {
    /// What a dead-letter command found or did.
    public enum Answer: Sendable, Hashable {
        /// A result as it goes on the wire.
        case json(JSONValue)
        /// What a retry or a purge did (``json`` has it as it goes on the wire).
        case change(DeadLetterChange)

        /// The answer as it goes on the wire.
        public var json: JSONValue {
            switch self {
            case .json(let value): return value
            case .change(let change): return change.json
            }
        }
    }

    /// Carries out `command` on `queue`; a command that is not about dead letters, an id
    /// the store does not have (nothing changes then) and a failing store are refused.
    public static func perform(_ command: ControlCommand, on queue: any DeadLetterQueue) async -> Result<Answer, ControlRefusal> {
        if let read = await read(command, from: queue) { return read }
        do {
            switch command {
            case .deadRetry(let selection):
                return answer(try await queue.retryDeadLetters(selection), verb: "retried")
            case .deadPurge(let selection):
                return answer(try await queue.purgeDeadLetters(selection), verb: "purged")
            case .deadList, .deadShow, .deadExport, .status, .flush, .offline, .online, .policy, .batchSize, .pause, .resume, .retryNow, .watch:
                return .failure(ControlRefusal(reason: "\(command.name) is not a dead-letter command"))
            }
        } catch {
            return .failure(ControlRefusal(reason: "the store failed: \(error)"))
        }
    }

    /// Carries out `command` when it only reads (list, show, export); `nil` for the others.
    public static func read(_ command: ControlCommand, from source: any DeadLetterReading) async -> Result<Answer, ControlRefusal>? {
        do {
            switch command {
            case .deadList(let limit):
                let letters = try await source.deadLetters(limit: limit)
                let total = try await source.deadLetterCount()
                return .success(.json(["total": .int(total), "deadLetters": .array(letters.map(\.summaryJSON))]))
            case .deadShow(let id):
                guard let letter = try await source.deadLetter(id: id) else {
                    return .failure(ControlRefusal(reason: "no dead letter with id \(id) (it was retried or purged, or never was)"))
                }
                return .success(.json(letter.fullJSON))
            case .deadExport(let after, let limit):
                return .success(.json(try await exportPage(source, after: after, limit: limit)))
            case .deadRetry, .deadPurge, .status, .flush, .offline, .online, .policy, .batchSize, .pause, .resume, .retryNow, .watch:
                return nil
            }
        } catch {
            return .failure(ControlRefusal(reason: "the store failed: \(error)"))
        }
    }

    /// One page of an export: at most `limit` letters after id `after`, cut at about
    /// ``ControlProtocol/exportPageBytes`` of letters (never below one letter); `next` is
    /// the `after` of the page that follows, or null at the end.
    static func exportPage(_ source: any DeadLetterReading, after: Int64, limit: Int) async throws(StorageError) -> JSONValue {
        var letters = try await source.deadLetters(afterID: after, limit: limit)
        let full = letters.count == limit
        var bytes = 0
        var kept = 0
        for letter in letters {
            // Its names and reason count as well as its payload: 13 KB names make a page as
            // large as 13 KB payloads do.
            let size = letter.event.payloadCount + letter.event.name.utf8.count + letter.reason.utf8.count
                + letter.destination.utf8.count + letter.event.messageId.utf8.count + 200
            if kept > 0, bytes + size > ControlProtocol.exportPageBytes { break }
            bytes += size
            kept += 1
        }
        let cut = kept < letters.count
        letters.removeLast(letters.count - kept)
        let next: JSONValue = full || cut ? letters.last.map { .int(Int($0.id)) } ?? .null : .null
        return ["deadLetters": .array(letters.map(\.fullJSON)), "next": next]
    }

    /// Applied, unless ids were missing (then nothing changed).
    private static func answer(_ change: DeadLetterChange, verb: String) -> Result<Answer, ControlRefusal> {
        guard change.missing.isEmpty else {
            let ids = change.missing.prefix(10).map(String.init).joined(separator: ", ") + (change.missing.count > 10 ? ", …" : "")
            let noun = change.missing.count == 1 ? "id" : "ids"
            return .failure(ControlRefusal(
                reason: "no dead letter with \(noun) \(ids) (retried or purged already, or never was); nothing was \(verb)"))
        }
        return .success(.change(change))
    }
}
