/// Cuts an ingest body into events without decoding them: one pass over the bytes that
/// validates the JSON, finds each event's byte range and locates the few fields the
/// collector checks (no `String` is made for them; escaped ones are decoded into a side
/// buffer).
enum BatchParser {
    /// Parses a `/v1/batch` body: `{"batch":[...], "writeKey": ..., ...}`.
    ///
    /// - Parameter limit: past this many elements of `batch`, the rest are still checked
    ///   as JSON and counted (``ParsedBody/elementCount``) but not kept, so a body of many
    ///   tiny elements costs no memory per element past the limit. `nil` keeps them all.
    static func parseBatch(_ body: [UInt8], keepingAtMost limit: Int? = nil) throws(CollectorError) -> ParsedBody {
        var decoded: [UInt8] = []
        let scan: BatchScan
        do {
            scan = try body.withUnsafeBufferPointer { bytes throws(JSONSyntaxError) in
                try scanBatch(bytes, keepingAtMost: limit ?? Int.max, decoded: &decoded)
            }
        } catch {
            throw CollectorError.invalidJSON(error)
        }
        guard scan.rootKind == .object else { throw CollectorError.bodyNotObject(found: scan.rootKind) }
        guard let batchKind = scan.batchKind else { throw CollectorError.missingBatch() }
        guard let items = scan.items else { throw CollectorError.batchNotArray(found: batchKind) }
        guard scan.elementCount > 0 else { throw CollectorError.emptyBatch() }
        var parsed = ParsedBody(body: body, decoded: decoded, items: items)
        parsed.elementCount = scan.elementCount
        if let writeKey = scan.writeKey, writeKey.kind == .string { parsed.writeKey = parsed.string(writeKey) }
        return parsed
    }

    /// Parses a `/v1/track` body: the event object itself.
    static func parseSingle(_ body: [UInt8]) throws(CollectorError) -> ParsedBody {
        var decoded: [UInt8] = []
        let rootKind: JSONKind
        let item: ParsedItem?
        do {
            (rootKind, item) = try body.withUnsafeBufferPointer { bytes throws(JSONSyntaxError) in
                var scanner = JSONScanner(bytes: bytes)
                let rootKind = try scanner.peekKind()
                var item: ParsedItem?
                if rootKind == .object {
                    let start = scanner.index
                    scanner.textProblem = nil
                    let fields = try parseFields(&scanner, depth: 0, decoded: &decoded)
                    item = ParsedItem(range: start..<scanner.index, kind: .object, fields: fields, textProblem: scanner.textProblem)
                } else {
                    try scanner.skipValue()
                }
                try scanner.expectEnd()
                return (rootKind, item)
            }
        } catch {
            throw CollectorError.invalidJSON(error)
        }
        guard let item else { throw CollectorError.bodyNotObject(found: rootKind) }
        var parsed = ParsedBody(body: body, decoded: decoded, items: [item])
        if let writeKey = item.fields.writeKey, writeKey.kind == .string { parsed.writeKey = parsed.string(writeKey) }
        return parsed
    }

    /// What one pass over a batch body found.
    private struct BatchScan {
        var rootKind: JSONKind
        var batchKind: JSONKind?
        var items: [ParsedItem]?
        /// Elements of `batch`, kept or not.
        var elementCount = 0
        var writeKey: FieldValue?
    }

    private static func scanBatch(
        _ body: UnsafeBufferPointer<UInt8>, keepingAtMost limit: Int, decoded: inout [UInt8]
    ) throws(JSONSyntaxError) -> BatchScan {
        var scanner = JSONScanner(bytes: body)
        var scan = BatchScan(rootKind: try scanner.peekKind())
        guard scan.rootKind == .object else {
            try scanner.skipValue()
            try scanner.expectEnd()
            return scan
        }
        try scanner.open(UInt8(ascii: "{"))
        var first = true
        while let key = try scanner.nextKey(isFirst: &first) {
            if scanner.token(key, equals: "batch") {
                let kind = try scanner.peekKind()
                scan.batchKind = kind
                if kind == .array {
                    var count = 0
                    scan.items = try parseItems(&scanner, keepingAtMost: limit, count: &count, decoded: &decoded)
                    scan.elementCount = count
                } else {
                    scan.items = nil
                    scan.elementCount = 0
                    try scanner.skipValue(depth: 1)
                }
            } else if scanner.token(key, equals: "writeKey") {
                scan.writeKey = try readField(&scanner, decoded: &decoded)
            } else {
                try scanner.skipValue(depth: 1)
            }
        }
        try scanner.expectEnd()
        return scan
    }

    /// Reads the elements of the `batch` array, keeping the first `limit`; `count` is set
    /// to the number of elements (kept or not).
    private static func parseItems(
        _ scanner: inout JSONScanner, keepingAtMost limit: Int, count: inout Int, decoded: inout [UInt8]
    ) throws(JSONSyntaxError) -> [ParsedItem] {
        try scanner.open(UInt8(ascii: "["))
        var items: [ParsedItem] = []
        var first = true
        count = 0
        while try scanner.nextElement(isFirst: &first) {
            count += 1
            if count > limit {
                try scanner.skipValue(depth: 2)
                continue
            }
            let kind = try scanner.peekKind()
            let start = scanner.index
            var fields = EventFields()
            scanner.textProblem = nil
            if kind == .object {
                fields = try parseFields(&scanner, depth: 2, decoded: &decoded)
            } else {
                try scanner.skipValue(depth: 2)
            }
            items.append(ParsedItem(range: start..<scanner.index, kind: kind, fields: fields, textProblem: scanner.textProblem))
        }
        return items
    }

    /// Reads one event object, keeping the fields the collector checks.
    private static func parseFields(
        _ scanner: inout JSONScanner, depth: Int, decoded: inout [UInt8]
    ) throws(JSONSyntaxError) -> EventFields {
        try scanner.open(UInt8(ascii: "{"))
        var fields = EventFields()
        var first = true
        while let key = try scanner.nextKey(isFirst: &first) {
            switch key.range.count {
            case 4 where scanner.token(key, equals: "type"): fields.type = try readField(&scanner, decoded: &decoded)
            case 5 where scanner.token(key, equals: "event"): fields.event = try readField(&scanner, decoded: &decoded)
            case 4 where scanner.token(key, equals: "name"): fields.name = try readField(&scanner, decoded: &decoded)
            case 9 where scanner.token(key, equals: "messageId"):
                fields.messageId = try readField(&scanner, decoded: &decoded)
            case 6 where scanner.token(key, equals: "userId"): fields.userId = try readField(&scanner, decoded: &decoded)
            case 11 where scanner.token(key, equals: "anonymousId"):
                fields.anonymousId = try readField(&scanner, decoded: &decoded)
            case 10 where scanner.token(key, equals: "properties"):
                fields.properties = try readField(&scanner, decoded: &decoded).kind
            case 6 where scanner.token(key, equals: "traits"): fields.traits = try readField(&scanner, decoded: &decoded).kind
            case 7 where scanner.token(key, equals: "context"):
                fields.context = try readField(&scanner, decoded: &decoded).kind
            case 12 where scanner.token(key, equals: "integrations"):
                fields.integrations = try readField(&scanner, decoded: &decoded).kind
            case 9 where scanner.token(key, equals: "timestamp"):
                fields.timestamp = try readField(&scanner, decoded: &decoded)
            case 17 where scanner.token(key, equals: "originalTimestamp"):
                fields.originalTimestamp = try readField(&scanner, decoded: &decoded)
            case 6 where scanner.token(key, equals: "sentAt"): fields.sentAt = try readField(&scanner, decoded: &decoded)
            case 8 where scanner.token(key, equals: "writeKey"):
                fields.writeKey = try readField(&scanner, decoded: &decoded)
            default:
                if key.hasEscapes {
                    // A key spelled with escapes: compare its decoded text the slow way.
                    fields = try readEscapedKey(key, into: fields, scanner: &scanner, depth: depth, decoded: &decoded)
                } else {
                    try scanner.skipValue(depth: depth + 1)
                }
            }
        }
        return fields
    }

    /// Handles a key written with escapes (`"\u0065vent"`), which real clients never send
    /// but valid JSON allows.
    private static func readEscapedKey(
        _ key: JSONStringToken, into fields: EventFields, scanner: inout JSONScanner, depth: Int,
        decoded: inout [UInt8]
    ) throws(JSONSyntaxError) -> EventFields {
        var fields = fields
        let path: WritableKeyPath<EventFields, FieldValue?>?
        let kindPath: WritableKeyPath<EventFields, JSONKind?>?
        switch try scanner.decode(key) {
        case "type": (path, kindPath) = (\.type, nil)
        case "event": (path, kindPath) = (\.event, nil)
        case "name": (path, kindPath) = (\.name, nil)
        case "messageId": (path, kindPath) = (\.messageId, nil)
        case "userId": (path, kindPath) = (\.userId, nil)
        case "anonymousId": (path, kindPath) = (\.anonymousId, nil)
        case "properties": (path, kindPath) = (nil, \.properties)
        case "traits": (path, kindPath) = (nil, \.traits)
        case "context": (path, kindPath) = (nil, \.context)
        case "integrations": (path, kindPath) = (nil, \.integrations)
        case "timestamp": (path, kindPath) = (\.timestamp, nil)
        case "originalTimestamp": (path, kindPath) = (\.originalTimestamp, nil)
        case "sentAt": (path, kindPath) = (\.sentAt, nil)
        case "writeKey": (path, kindPath) = (\.writeKey, nil)
        default: (path, kindPath) = (nil, nil)
        }
        if let path {
            fields[keyPath: path] = try readField(&scanner, decoded: &decoded)
        } else if let kindPath {
            fields[keyPath: kindPath] = try readField(&scanner, decoded: &decoded).kind
        } else {
            try scanner.skipValue(depth: depth + 1)
        }
        return fields
    }

    /// Reads one field value: strings (escapes resolved into `decoded`) and numbers with
    /// where their text is, other kinds skipped.
    private static func readField(
        _ scanner: inout JSONScanner, decoded: inout [UInt8]
    ) throws(JSONSyntaxError) -> FieldValue {
        let kind = try scanner.peekKind()
        switch kind {
        case .string:
            let token = try scanner.scanString()
            guard token.hasEscapes else { return FieldValue(kind: .string, range: token.range) }
            let start = decoded.count
            try scanner.decode(token, into: &decoded)
            return FieldValue(kind: .string, range: start..<decoded.count, isDecoded: true)
        case .number:
            let start = scanner.index
            try scanner.scanNumber()
            return FieldValue(kind: .number, range: start..<scanner.index)
        default:
            try scanner.skipValue(depth: 2)
            return FieldValue(kind: kind)
        }
    }
}
