import BeaconWire

/// One request on the control channel: an id the response repeats, and a command.
public struct ControlRequest: Sendable, Hashable {
    /// Chosen by the client; repeated in the response (`nil` is sent as `null`).
    public var id: Int?
    /// What to do.
    public var command: ControlCommand

    public init(id: Int?, command: ControlCommand) {
        self.id = id
        self.command = command
    }

    /// The request as one line of JSON, newline included.
    public var line: [UInt8] {
        var members: [String: JSONValue] = [
            "v": .int(ControlProtocol.version), "id": id.map { .int($0) } ?? .null, "command": .string(command.name),
        ]
        if let argument = command.argument { members["argument"] = argument }
        var writer = JSONWriter()
        writer.write(members)
        writer.writeByte(UInt8(ascii: "\n"))
        return writer.bytes
    }
}
