import BeaconWire
import Foundation

/// The control channel's wire format: newline-delimited JSON over a Unix domain socket
/// beside the store (``socketPath(forStore:)``), version 1.
///
/// One request object per line, one response line per request, in order:
///
/// ```
/// → {"v":1,"id":1,"command":"policy","argument":"count 7"}
/// ← {"v":1,"id":1,"ok":true,"result":{"policy":"count 7"}}
/// → {"v":1,"id":2,"command":"batch-size","argument":0}
/// ← {"v":1,"id":2,"ok":false,"error":"batch size must be 1...10000, not 0"}
/// ```
///
/// Commands (``ControlCommand``), with their argument:
///
/// | command | argument | result |
/// |---|---|---|
/// | `status` | none | policy, batchSize, offline, depth, deadLetters, destinations (name, state, paused, pausedBy, pending, oldestPendingAge in seconds, lastSuccessAt, stalled), commands |
/// | `flush`, `offline`, `online` | none | what is now in force |
/// | `policy` | the policy's text, as ``FlushPolicy/init(parsing:)`` reads it | the policy |
/// | `batch-size` | an integer in ``batchSizes`` | the batch size |
/// | `pause`, `resume` | a destination's name, or none for every one | `destinations`: the names paused or resumed |
/// | `dead-list` | none, or `{"limit": N}` (N in ``deadLetterPage``, default its top) | `total`, `deadLetters` newest first (id, destination, reason, status, failedAt, messageId, name, preview, attempts) |
/// | `dead-show` | an id | the dead letter, its whole `event` and its `history` (every refusal: attempt, reason, status, failedAt) |
/// | `dead-retry`, `dead-purge` | `"all"`, an array of at most ``maxIDs`` ids, or `{"matching": {"destination", "reason", "text"}}` (``DeadLetterQuery``) | `done`, `missing`, `refused` (ids), `count` |
/// | `watch` | none, or `{"intervalMs": N}` (N in ``watchIntervals``, default 1,000) | a `status` result at once and then one every N ms, each a response line with the request's id, until the client closes the connection (it takes the connection: send other commands on another) |
/// | `dead-export` | none, or `{"after": ID, "limit": N}` | `deadLetters` oldest first with their whole `event`, at most N and about ``exportPageBytes``; `next`: the `after` of the next page, or null |
///
/// Ids are whole numbers in 1...2^62 (``deadLetterID(_:)``). Added in version 1 without
/// changing the older commands: a client that knows only those is served as before. A
/// line that is not a request (malformed JSON, longer than ``maxLineBytes``, another
/// version) gets a refusal with `"id":null` when no id could be read; a line too long also
/// ends the connection. An answer longer than ``maxResponseBytes`` is refused instead,
/// with a reason naming its size and the limit.
public enum ControlProtocol {
    /// The version this engine speaks (`"v"` in every line).
    public static let version = 1
    /// The longest request line accepted, newline excluded.
    public static let maxLineBytes = 64 * 1024
    /// The longest response line, newline excluded: room for the largest answer a command
    /// can give (a `dead-list` of 1,000 letters with 32 KB names is about 33 MB). The
    /// engine refuses to send a longer one, with a reason naming this limit; a client
    /// reads no more than this and reports a longer line as such.
    public static let maxResponseBytes = 64 * 1024 * 1024
    /// Batch sizes a `batch-size` command may set (the dashboard's range).
    public static let batchSizes = 1...10_000
    /// Deepest nesting of arrays and objects accepted in a request.
    static let maxNesting = 16
    /// Milliseconds between the snapshots of a `watch`.
    public static let watchIntervals = 100...60_000
    /// The `watch` interval when none is given.
    public static let defaultWatchInterval = 1_000
    /// Dead letters one `dead-list` or `dead-export` answer holds at most.
    public static let deadLetterPage = 1...1_000
    /// Ids one `dead-retry` or `dead-purge` may name.
    public static let maxIDs = 10_000
    /// Bytes of letters (payload, name, reason and the rest) a `dead-export` page holds at
    /// most, past its first letter: the answer stays well under ``maxResponseBytes``.
    public static let exportPageBytes = 256 * 1024
    /// Dead-letter ids: what the store hands out.
    public static let deadLetterIDs: ClosedRange<Int64> = 1...(1 << 62)
    /// The rule ids follow, for refusals.
    static let idRule = "ids are whole numbers in 1...\(1 << 62)"

    /// A dead-letter id from a JSON value, or `nil` when it is not one.
    public static func deadLetterID(_ value: JSONValue) -> Int64? {
        guard case .int(let number) = value else { return nil }
        let id = Int64(number)
        return deadLetterIDs.contains(id) ? id : nil
    }

    /// Why `name` cannot be a destination's name (empty, longer than 200 bytes, control
    /// characters), or `nil`.
    public static func problem(withName name: String) -> String? {
        if name.isEmpty { return "a destination's name cannot be empty" }
        if name.utf8.count > 200 { return "a destination's name has at most 200 bytes, not \(name.utf8.count)" }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "destination \"\(PrintableText.line(name))\" holds control characters; no destination is named so"
        }
        return nil
    }

    /// Where the engine writing `store` serves its channel: `store` + `.control`, beside
    /// the file a symlink names (so an engine started on the link and a `ctl` given the
    /// file meet). A file name too long for a socket's, even reached through its
    /// directory, has `.beacon-INODE.control` beside it instead: every name a store can
    /// have is served.
    public static func socketPath(forStore store: String) -> String {
        var info = stat()
        var path = store
        if lstat(store, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK, let resolved = realpath(store, nil) {
            path = String(cString: resolved)
            free(resolved)
        }
        let natural = path + ".control"
        guard !ControlSocket.fits(natural), let identity = FileIdentity(path: path) else { return natural }
        let bytes = Array(path.utf8)
        let directory = bytes.lastIndex(of: UInt8(ascii: "/")).map { String(decoding: bytes[..<$0], as: UTF8.self) + "/" } ?? ""
        return directory + ".beacon-\(identity.inode).control"
    }

    /// A request line read: the request, or the refusal to send back.
    enum Decoded {
        case request(ControlRequest)
        case refused(ControlResponse)
    }

    /// Reads one request line: the request, or the refusal to send back.
    static func decodeRequest(_ line: [UInt8]) -> Decoded {
        guard nesting(of: line) <= maxNesting else {
            return .refused(ControlResponse(id: nil, refusal: "the request nests deeper than \(maxNesting) levels"))
        }
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(line))
        } catch {
            return .refused(ControlResponse(id: nil, refusal: "the request is not JSON; send one JSON object per line"))
        }
        guard let object = value.objectValue else {
            return .refused(ControlResponse(id: nil, refusal: "the request is a JSON \(value.typeName), not an object"))
        }
        let id: Int?
        switch object["id"] {
        case .int(let number): id = number
        case nil, .null: id = nil
        default: return .refused(ControlResponse(id: nil, refusal: "\"id\" must be an integer"))
        }
        guard case .int(let version) = object["v"] else {
            return .refused(ControlResponse(id: id, refusal: "\"v\" is missing; this engine speaks version \(Self.version)"))
        }
        guard version == Self.version else {
            return .refused(ControlResponse(id: id, refusal: "protocol version \(version) is not spoken here; this engine speaks version \(Self.version)"))
        }
        guard let name = object["command"]?.stringValue else {
            return .refused(ControlResponse(id: id, refusal: "\"command\" is missing or not a string"))
        }
        switch ControlCommand.parse(name: name, argument: object["argument"]) {
        case .success(let command): return .request(ControlRequest(id: id, command: command))
        case .failure(let refusal): return .refused(ControlResponse(id: id, refusal: refusal.reason))
        }
    }

    /// The deepest nesting of arrays and objects outside strings.
    static func nesting(of line: [UInt8]) -> Int {
        var depth = 0, deepest = 0, inString = false, escaped = false
        for byte in line {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth = max(0, depth - 1)
            default: break
            }
        }
        return deepest
    }

    /// Reads one response line.
    static func decodeResponse(_ line: [UInt8]) -> ControlResponse? {
        // Deliberate: an unreadable line is no response; the caller reports it as such.
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(line)), let object = value.objectValue else {
            return nil
        }
        let id = object["id"]?.intValue
        if case .bool(true) = object["ok"] { return ControlResponse(id: id, result: object["result"] ?? .null) }
        return ControlResponse(id: id, refusal: object["error"]?.stringValue ?? "the engine refused without a reason")
    }
}
