import BeaconWire

/// The answer to one control request: applied with a result, or refused with a reason.
public struct ControlResponse: Sendable, Hashable {
    /// The request's id (`nil` when the request had none or could not be read).
    public var id: Int?
    /// The result when applied, the reason when refused.
    public var outcome: Result<JSONValue, ControlRefusal>

    public init(id: Int?, result: JSONValue) {
        self.id = id
        self.outcome = .success(result)
    }

    public init(id: Int?, refusal reason: String) {
        self.id = id
        self.outcome = .failure(ControlRefusal(reason: reason))
    }

    /// Whether the command was applied.
    public var isApplied: Bool {
        if case .success = outcome { return true }
        return false
    }

    /// The response as one line of JSON, newline included.
    public var line: [UInt8] {
        var members: [String: JSONValue] = ["v": .int(ControlProtocol.version), "id": id.map { .int($0) } ?? .null]
        switch outcome {
        case .success(let result):
            members["ok"] = true
            members["result"] = result
        case .failure(let refusal):
            members["ok"] = false
            members["error"] = .string(refusal.reason)
        }
        var writer = JSONWriter()
        writer.write(members)
        writer.writeByte(UInt8(ascii: "\n"))
        return writer.bytes
    }
}
