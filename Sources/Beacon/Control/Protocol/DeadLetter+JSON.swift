import BeaconWire
import Foundation

extension DeadLetter {
    /// The letter as `dead-list` shows it: id, destination, reason, status, failedAt,
    /// messageId, name, a payload preview and how many times it was refused (`attempts`).
    public var summaryJSON: JSONValue {
        [
            "id": .int(Int(id)), "destination": .string(destination), "reason": .string(reason),
            "status": status.map { .int($0) } ?? .null, "failedAt": .string(failedAt.iso8601),
            "messageId": .string(event.messageId), "name": .string(event.name), "preview": .string(payloadPreview(limit: 120)),
            "attempts": .int(attemptCount),
        ]
    }

    /// The letter with its whole event (`event`: the JSON as queued; a payload that is not
    /// JSON, from a damaged store, comes as the string `eventText` instead) and every
    /// refusal in `history`, oldest first.
    public var fullJSON: JSONValue {
        guard case .object(var members) = summaryJSON else { return summaryJSON }
        members["preview"] = nil
        members["history"] = .array(attempts.map { attempt in
            [
                "attempt": .int(attempt.number), "reason": .string(attempt.reason),
                "status": attempt.status.map { .int($0) } ?? .null, "failedAt": .string(attempt.failedAt.iso8601),
            ]
        })
        // Deliberate: a payload that does not decode is shown as text rather than refused.
        if let event = try? JSONDecoder().decode(JSONValue.self, from: Data(event.payload)) {
            members["event"] = event
        } else {
            members["eventText"] = .string(String(decoding: event.payload, as: UTF8.self))
        }
        return .object(members)
    }
}

extension DeadLetterChange {
    /// The change as `dead-retry` and `dead-purge` answer it.
    public var json: JSONValue {
        [
            "done": .array(done.map { .int(Int($0)) }), "count": .int(done.count),
            "missing": .array(missing.map { .int(Int($0)) }),
            "refused": .array(refused.map { ["id": .int(Int($0.id)), "reason": .string($0.reason)] }),
        ]
    }
}
