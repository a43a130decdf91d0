import BeaconWire

/// Checks one event against the Segment spec and the collector's limits. Pure: fields in,
/// a rejection (or `nil`) out.
enum EventValidator {
    /// The Segment call types the collector accepts.
    static let knownTypes: Set<String> = ["track", "identify", "page", "screen", "group", "alias"]
    /// The longest `messageId` accepted.
    static let maxMessageIdLength = 256

    /// The problem with the event at `index`, or `nil` when it is valid.
    ///
    /// - Parameter defaultType: the type assumed when the event has none (`track`).
    static func check(
        _ item: ParsedItem, index: Int, maxEventBytes: Int, defaultType: String = "track"
    ) -> EventRejection? {
        func reject(_ code: String, _ reason: String) -> EventRejection {
            let messageId = item.fields.messageId.flatMap { $0.kind == .string ? $0.text : nil }
            return EventRejection(
                index: index, messageId: messageId?.isEmpty == false ? messageId : nil, code: code, reason: reason)
        }
        guard item.kind == .object else {
            return reject(
                "event_not_object",
                "Event \(index) is a JSON \(item.kind.name), not an object; send each event as {\"type\":...}.")
        }
        let fields = item.fields
        if item.range.count > maxEventBytes {
            return reject(
                "event_too_large",
                "Event \(index) is \(item.range.count) bytes, more than the limit of \(maxEventBytes); trim its properties.")
        }
        guard let messageIdField = fields.messageId, messageIdField.kind != .null else {
            return reject("missing_message_id", "Event \(index) has no messageId; give every event a unique messageId.")
        }
        guard messageIdField.kind == .string, let messageId = messageIdField.text else {
            return reject(
                "wrong_type",
                "Event \(index): messageId is a \(messageIdField.kind.name); send it as a string.")
        }
        if messageId.isEmpty {
            return reject("missing_message_id", "Event \(index) has an empty messageId; give every event a unique messageId.")
        }
        if messageId.utf8.count > maxMessageIdLength {
            return reject(
                "message_id_too_long",
                "Event \(index): messageId is longer than \(maxMessageIdLength) bytes; use a UUID.")
        }
        var type = defaultType
        if let typeField = fields.type, typeField.kind != .null {
            guard typeField.kind == .string, let text = typeField.text else {
                return reject("wrong_type", "Event \(index): type is a \(typeField.kind.name); send it as a string.")
            }
            type = text
        }
        guard knownTypes.contains(type) else {
            return reject(
                "unknown_type",
                "Event \(index) has type '\(type)'; use track, identify, page, screen, group or alias.")
        }
        let stringFields: [(String, FieldValue?)] = [
            ("event", fields.event), ("name", fields.name), ("userId", fields.userId), ("anonymousId", fields.anonymousId),
        ]
        for (name, field) in stringFields {
            guard let field, field.kind != .null else { continue }
            let numericId = (name == "userId" || name == "anonymousId") && field.kind == .number
            if field.kind != .string && !numericId {
                return reject("wrong_type", "Event \(index): \(name) is a \(field.kind.name); send it as a string.")
            }
        }
        let objectFields: [(String, FieldValue?)] = [
            ("properties", fields.properties), ("traits", fields.traits), ("context", fields.context),
            ("integrations", fields.integrations),
        ]
        for (name, field) in objectFields {
            guard let field, field.kind != .null else { continue }
            if field.kind != .object {
                return reject("wrong_type", "Event \(index): \(name) is a \(field.kind.name); send it as an object.")
            }
        }
        if type == "track" {
            guard let event = fields.event?.text, !event.isEmpty else {
                return reject(
                    "missing_event_name",
                    "Event \(index) is a track call without an event name; set \"event\" to what happened.")
            }
        }
        let userId = fields.userId?.text ?? ""
        let anonymousId = fields.anonymousId?.text ?? ""
        if userId.isEmpty && anonymousId.isEmpty {
            return reject(
                "missing_identity",
                "Event \(index) has neither userId nor anonymousId; set at least one of them.")
        }
        let times: [(String, FieldValue?)] = [
            ("timestamp", fields.timestamp), ("originalTimestamp", fields.originalTimestamp), ("sentAt", fields.sentAt),
        ]
        for (name, field) in times {
            guard let field, field.kind != .null else { continue }
            guard field.kind == .string, let text = field.text, Timestamp(iso8601: text) != nil else {
                return reject(
                    "invalid_timestamp",
                    "Event \(index): \(name) is not an ISO 8601 date-time; send e.g. 2026-01-31T12:00:00.000Z.")
            }
        }
        return nil
    }
}
