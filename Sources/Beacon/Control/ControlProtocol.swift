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
/// Commands: `status`, `flush`, `offline`, `online`, `policy` (argument: the policy's
/// text, as ``FlushPolicy/init(parsing:)`` reads it) and `batch-size` (argument: an
/// integer in ``batchSizes``). A line that is not a request (malformed JSON, longer than
/// ``maxLineBytes``, another version) gets a refusal with `"id":null` when no id could
/// be read; a line too long also ends the connection.
public enum ControlProtocol {
    /// The version this engine speaks (`"v"` in every line).
    public static let version = 1
    /// The longest request line accepted, newline excluded.
    public static let maxLineBytes = 64 * 1024
    /// Batch sizes a `batch-size` command may set (the dashboard's range).
    public static let batchSizes = 1...10_000
    /// Deepest nesting of arrays and objects accepted in a request.
    static let maxNesting = 16

    /// Where the engine writing `store` serves its channel: `store` + `.control`.
    public static func socketPath(forStore store: String) -> String { store + ".control" }

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
