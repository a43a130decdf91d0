import BeaconWire
import Foundation

/// One event still in the queue, as `beacon events` and the pending view show it.
public struct PendingEventRecord: Sendable, Hashable {
    /// Its position in the queue (increasing in the order `track` accepted them).
    public var sequence: Int64
    public var messageId: String
    public var name: String
    /// When it was accepted.
    public var createdAt: Timestamp
    /// The event's JSON, as it will travel.
    public var payload: [UInt8]

    public init(sequence: Int64, messageId: String, name: String, createdAt: Timestamp, payload: [UInt8]) {
        self.sequence = sequence
        self.messageId = messageId
        self.name = name
        self.createdAt = createdAt
        self.payload = payload
    }

    /// For `beacon events --json`: the event parsed when it is JSON (it is, unless the
    /// store was damaged), else its text.
    public var json: JSONValue {
        var members: [String: JSONValue] = [
            "sequence": .int(Int(clamping: sequence)), "messageId": .string(messageId), "name": .string(name),
            "createdAt": .string(createdAt.iso8601), "bytes": .int(payload.count),
        ]
        // Deliberate: a payload that does not decode is shown as text rather than refused.
        if let event = try? JSONDecoder().decode(JSONValue.self, from: Data(payload)) {
            members["event"] = event
        } else {
            members["eventText"] = .string(String(decoding: payload, as: UTF8.self))
        }
        return .object(members)
    }
}
