import BeaconWire
import Foundation

/// A sync response, checked and flattened into the writes it asks for. Pure: parsing
/// touches no store, so a malformed response is refused before anything changes.
///
/// The shape (the seed article's, generalised):
/// ```json
/// {"events": [{"id": 1, "title": "My Event", "location": {"id": 2, "name": "Donny's House"}}],
///  "locations": [{"id": 3, "name": "Melkweg, Amsterdam"}],
///  "deleted": {"events": [2, 8], "locations": [4, 7]},
///  "version_token": "1234567890"}
/// ```
/// Every top-level key other than `deleted` and `version_token` is a collection: an array
/// of objects, each with an `id` (string or integer). A field of an item that is an object
/// with an `id` is a nested record: it is stored in its own collection (the field's
/// plural: `location` → `locations`) and the item keeps only its id, plus a link.
struct SyncFeed: Sendable {
    /// A record to insert or replace.
    struct Upsert: Sendable, Hashable {
        var collection: String
        var id: String
        var body: JSONValue
        var links: [String: SyncLink]
    }

    var upserts: [Upsert] = []
    /// Ids to delete, per collection (collections sorted by name).
    var deletions: [(collection: String, ids: [String])] = []
    var versionToken: String

    /// Parses a response's bytes.
    init(json bytes: [UInt8]) throws(SyncError) {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch {
            throw .invalidJSON(reason: SyncFeed.describe(error))
        }
        try self.init(value)
    }

    /// Checks a decoded response.
    init(_ value: JSONValue) throws(SyncError) {
        guard case .object(let object) = value else {
            throw .wrongType(path: "the response", expected: "a JSON object", found: value.typeName)
        }
        switch object["version_token"] {
        case .string(let token)? where !token.isEmpty: versionToken = token
        case nil, .null?, .string?: throw .missingVersionToken
        case let other?: throw .wrongType(path: "version_token", expected: "a string", found: other.typeName)
        }
        for key in object.keys.sorted() where key != "deleted" && key != "version_token" {
            guard !key.isEmpty, !SyncFeed.hasControlCharacters(key) else {
                throw .wrongType(path: "the response", expected: "collection names without control characters", found: "\"\(key)\"")
            }
            guard case .array(let items) = object[key] else {
                throw .wrongType(path: key, expected: "an array of objects with an \"id\"", found: object[key]?.typeName ?? "null")
            }
            for (index, item) in items.enumerated() {
                _ = try flatten(item, collection: key, path: "\(key)[\(index)]")
            }
        }
        switch object["deleted"] {
        case nil, .null?: break
        case .object(let deleted)?:
            for collection in deleted.keys.sorted() {
                guard case .array(let ids) = deleted[collection] else {
                    throw .wrongType(
                        path: "deleted.\(collection)", expected: "an array of ids", found: deleted[collection]?.typeName ?? "null")
                }
                var texts: [String] = []
                for (index, id) in ids.enumerated() {
                    guard let text = SyncFeed.idText(id) else {
                        throw .wrongType(
                            path: "deleted.\(collection)[\(index)]", expected: "a string id without control characters, or an integer",
                            found: id.shortDescription)
                    }
                    texts.append(text)
                }
                deletions.append((collection, texts))
            }
        case let other?:
            throw .wrongType(path: "deleted", expected: "an object mapping collection names to arrays of ids", found: other.typeName)
        }
    }

    /// Records `item` (and its nested records, first) as upserts; returns its id.
    private mutating func flatten(_ item: JSONValue, collection: String, path: String) throws(SyncError) -> String {
        guard case .object(var fields) = item else {
            throw .wrongType(path: path, expected: "an object with an \"id\"", found: item.typeName)
        }
        guard let idValue = fields["id"] else { throw .missingID(path: path) }
        guard let id = SyncFeed.idText(idValue) else {
            throw .wrongType(
                path: "\(path).id", expected: "a string without control characters, or an integer", found: idValue.shortDescription)
        }
        var links: [String: SyncLink] = [:]
        for field in fields.keys.sorted() where field != "id" {
            guard case .object(let nested)? = fields[field], nested["id"] != nil else { continue }
            let target = SyncFeed.collectionName(forField: field)
            let nestedID = try flatten(.object(nested), collection: target, path: "\(path).\(field)")
            links[field] = SyncLink(collection: target, id: nestedID)
            fields[field] = nested["id"]
        }
        upserts.append(Upsert(collection: collection, id: id, body: .object(fields), links: links))
        return id
    }

    /// The text form of an id: strings as they are, integers in decimal; anything else is not an id.
    static func idText(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text) where !text.isEmpty && !hasControlCharacters(text): return text
        case .int(let number): return String(number)
        case .double(let number) where abs(number) < 9.0e15: return Int(exactly: number).map { String($0) }
        default: return nil
        }
    }

    /// Whether `text` holds a C0 control character (NUL among them). Ids and collection
    /// names are compared byte for byte in the store; refusing these keeps two ids that
    /// differ only after a NUL from ever meeting there.
    static func hasControlCharacters(_ text: String) -> Bool {
        text.utf8.contains { $0 < 0x20 || $0 == 0x7F }
    }

    /// The collection of a nested record: the field's plural (`location` → `locations`,
    /// `category` → `categories`, `series` → `series`).
    static func collectionName(forField field: String) -> String {
        if field.hasSuffix("s") { return field }
        if field.hasSuffix("y"), let before = field.dropLast().last, !"aeiou".contains(before) {
            return field.dropLast() + "ies"
        }
        return field + "s"
    }

    private static func describe(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            return context.underlyingError.map { "\($0)" } ?? context.debugDescription
        }
        return "\(error)"
    }
}
