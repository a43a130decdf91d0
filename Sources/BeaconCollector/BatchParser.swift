/// Cuts an ingest body into events without decoding them: one pass over the bytes that
/// validates the JSON, finds each event's byte range and reads the few fields the
/// collector checks.
enum BatchParser {
    /// Parses a `/v1/batch` body: `{"batch":[...], "writeKey": ..., ...}`.
    static func parseBatch(_ body: UnsafeBufferPointer<UInt8>) throws(CollectorError) -> ParsedBody {
        let scan: BatchScan
        do {
            scan = try scanBatch(body)
        } catch {
            throw CollectorError.invalidJSON(error)
        }
        guard scan.rootKind == .object else { throw CollectorError.bodyNotObject(found: scan.rootKind) }
        guard let batchKind = scan.batchKind else { throw CollectorError.missingBatch() }
        guard let items = scan.items else { throw CollectorError.batchNotArray(found: batchKind) }
        guard !items.isEmpty else { throw CollectorError.emptyBatch() }
        return ParsedBody(items: items, writeKey: scan.writeKey)
    }

    /// Parses a `/v1/track` body: the event object itself.
    static func parseSingle(_ body: UnsafeBufferPointer<UInt8>) throws(CollectorError) -> ParsedBody {
        var scanner = JSONScanner(bytes: body)
        let rootKind: JSONKind
        var item: ParsedItem?
        do {
            rootKind = try scanner.peekKind()
            if rootKind == .object {
                let start = scanner.index
                let fields = try parseFields(&scanner, depth: 0)
                item = ParsedItem(range: start..<scanner.index, kind: .object, fields: fields)
            } else {
                try scanner.skipValue()
            }
            try scanner.expectEnd()
        } catch {
            throw CollectorError.invalidJSON(error)
        }
        guard let item else { throw CollectorError.bodyNotObject(found: rootKind) }
        let writeKey = item.fields.writeKey?.kind == .string ? item.fields.writeKey?.text : nil
        return ParsedBody(items: [item], writeKey: writeKey)
    }

    /// What one pass over a batch body found.
    private struct BatchScan {
        var rootKind: JSONKind
        var batchKind: JSONKind?
        var items: [ParsedItem]?
        var writeKey: String?
    }

    private static func scanBatch(_ body: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> BatchScan {
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
                    scan.items = try parseItems(&scanner)
                } else {
                    scan.items = nil
                    try scanner.skipValue(depth: 1)
                }
            } else if scanner.token(key, equals: "writeKey") {
                let value = try readField(&scanner)
                scan.writeKey = value.kind == .string ? value.text : nil
            } else {
                try scanner.skipValue(depth: 1)
            }
        }
        try scanner.expectEnd()
        return scan
    }

    /// Reads the elements of the `batch` array.
    private static func parseItems(_ scanner: inout JSONScanner) throws(JSONSyntaxError) -> [ParsedItem] {
        try scanner.open(UInt8(ascii: "["))
        var items: [ParsedItem] = []
        var first = true
        while try scanner.nextElement(isFirst: &first) {
            let kind = try scanner.peekKind()
            let start = scanner.index
            var fields = EventFields()
            if kind == .object {
                fields = try parseFields(&scanner, depth: 2)
            } else {
                try scanner.skipValue(depth: 2)
            }
            items.append(ParsedItem(range: start..<scanner.index, kind: kind, fields: fields))
        }
        return items
    }

    /// Reads one event object, keeping the fields the collector checks.
    private static func parseFields(_ scanner: inout JSONScanner, depth: Int) throws(JSONSyntaxError) -> EventFields {
        try scanner.open(UInt8(ascii: "{"))
        var fields = EventFields()
        var first = true
        while let key = try scanner.nextKey(isFirst: &first) {
            switch key.range.count {
            case 4 where scanner.token(key, equals: "type"): fields.type = try readField(&scanner)
            case 5 where scanner.token(key, equals: "event"): fields.event = try readField(&scanner)
            case 4 where scanner.token(key, equals: "name"): fields.name = try readField(&scanner)
            case 9 where scanner.token(key, equals: "messageId"): fields.messageId = try readField(&scanner)
            case 6 where scanner.token(key, equals: "userId"): fields.userId = try readField(&scanner)
            case 11 where scanner.token(key, equals: "anonymousId"): fields.anonymousId = try readField(&scanner)
            case 10 where scanner.token(key, equals: "properties"): fields.properties = try readField(&scanner)
            case 6 where scanner.token(key, equals: "traits"): fields.traits = try readField(&scanner)
            case 7 where scanner.token(key, equals: "context"): fields.context = try readField(&scanner)
            case 12 where scanner.token(key, equals: "integrations"): fields.integrations = try readField(&scanner)
            case 9 where scanner.token(key, equals: "timestamp"): fields.timestamp = try readField(&scanner)
            case 17 where scanner.token(key, equals: "originalTimestamp"):
                fields.originalTimestamp = try readField(&scanner)
            case 6 where scanner.token(key, equals: "sentAt"): fields.sentAt = try readField(&scanner)
            case 8 where scanner.token(key, equals: "writeKey"): fields.writeKey = try readField(&scanner)
            default:
                if key.hasEscapes {
                    // A key spelled with escapes: compare its decoded text the slow way.
                    fields = try readEscapedKey(key, into: fields, scanner: &scanner, depth: depth)
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
        _ key: JSONStringToken, into fields: EventFields, scanner: inout JSONScanner, depth: Int
    ) throws(JSONSyntaxError) -> EventFields {
        var fields = fields
        let path: WritableKeyPath<EventFields, FieldValue?>?
        switch try scanner.decode(key) {
        case "type": path = \.type
        case "event": path = \.event
        case "name": path = \.name
        case "messageId": path = \.messageId
        case "userId": path = \.userId
        case "anonymousId": path = \.anonymousId
        case "properties": path = \.properties
        case "traits": path = \.traits
        case "context": path = \.context
        case "integrations": path = \.integrations
        case "timestamp": path = \.timestamp
        case "originalTimestamp": path = \.originalTimestamp
        case "sentAt": path = \.sentAt
        case "writeKey": path = \.writeKey
        default: path = nil
        }
        if let path {
            fields[keyPath: path] = try readField(&scanner)
        } else {
            try scanner.skipValue(depth: depth + 1)
        }
        return fields
    }

    /// Reads one field value: strings and numbers with their text, other kinds skipped.
    private static func readField(_ scanner: inout JSONScanner) throws(JSONSyntaxError) -> FieldValue {
        let kind = try scanner.peekKind()
        switch kind {
        case .string:
            let token = try scanner.scanString()
            return FieldValue(kind: .string, text: try scanner.decode(token))
        case .number:
            let start = scanner.index
            try scanner.scanNumber()
            return FieldValue(kind: .number, text: scanner.text(start..<scanner.index))
        default:
            try scanner.skipValue(depth: 2)
            return FieldValue(kind: kind, text: nil)
        }
    }
}
