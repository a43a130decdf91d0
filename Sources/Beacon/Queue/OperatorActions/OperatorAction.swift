import BeaconWire

/// One command an operator gave an engine through its control channel (`ctl`, an
/// attached console), applied or refused: what changed the engine, when, and who asked.
/// Its texts are kept printable and bounded (``textLimit``): they may quote a peer.
/// Kept in the store, the newest ``OperatorAction/kept`` of them; `beacon ctl log` lists them.
public struct OperatorAction: Sendable, Hashable {
    /// Its row's id, increasing (0 before it is stored).
    public var id: Int64
    public var at: Timestamp
    /// The command's name on the wire (`pause`, `policy`, `dead-purge`…).
    public var command: String
    /// Its argument as JSON text (`"backup"`, `"count 50"`, `{"ids":[3]}`), if any.
    public var argument: String?
    /// Whether the engine applied it.
    public var applied: Bool
    /// The engine's reason when it refused.
    public var reason: String?
    /// The peer's credentials (`SO_PEERCRED`), when they could be read.
    public var peerUID: UInt32?
    public var peerPID: Int32?

    /// Actions kept in a store at most: the oldest go first.
    public static let kept = 1_000
    /// Characters kept of each text (a refusal's reason can quote what a peer sent).
    public static let textLimit = 1_000

    /// `text` made safe to keep and print: unsafe scalars (a NUL, escapes) written out
    /// (``PrintableText/line(_:)``), and cut to ``textLimit`` characters.
    static func kept(_ text: String) -> String {
        let line = PrintableText.line(text)
        return line.count > textLimit ? String(line.prefix(textLimit - 1)) + "…" : line
    }

    public init(
        id: Int64 = 0, at: Timestamp, command: String, argument: String?, applied: Bool, reason: String?, peerUID: UInt32?,
        peerPID: Int32?
    ) {
        self.id = id
        self.at = at
        self.command = Self.kept(command)
        self.argument = argument.map(Self.kept)
        self.applied = applied
        self.reason = reason.map(Self.kept)
        self.peerUID = peerUID
        self.peerPID = peerPID
    }

    /// For `beacon ctl log --json`.
    public var json: JSONValue {
        [
            "id": .int(Int(clamping: id)), "at": .string(at.iso8601), "command": .string(command),
            "argument": argument.map { .string($0) } ?? .null, "applied": .bool(applied), "reason": reason.map { .string($0) } ?? .null,
            "peerUid": peerUID.map { .int(Int($0)) } ?? .null, "peerPid": peerPID.map { .int(Int($0)) } ?? .null,
        ]
    }
}
