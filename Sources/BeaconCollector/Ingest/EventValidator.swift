import BeaconWire

/// Checks one event against the Segment spec and the collector's limits. Pure: fields in,
/// a verdict out. It reads the fields as bytes of the body; a `String` is made only to
/// word a rejection.
enum EventValidator {
    /// The longest `messageId` accepted, in bytes.
    static let maxMessageIdLength = 256

    /// What the validator made of one event.
    enum Verdict: Sendable, Hashable {
        /// The event is valid: its type (the default type when it names none), its
        /// `messageId` (a non-empty string), and its time as read from `timestamp` (or,
        /// when that is absent or null, `originalTimestamp`), if it has one.
        case valid(type: EventType, messageId: FieldValue, time: Timestamp?)
        /// The event is refused, and why.
        case invalid(EventRejection)

        /// The rejection, for an invalid event.
        var rejection: EventRejection? {
            if case .invalid(let rejection) = self { return rejection }
            return nil
        }
    }

    /// `digits` as a whole number of milliseconds since 1970, at most the end of the year
    /// 9999 (15 digits, no sign, fraction or exponent); `nil` for anything else.
    static func epochMilliseconds(_ digits: some Collection<UInt8>) -> Timestamp? {
        guard (1...15).contains(digits.count), digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        var value: Int64 = 0
        for digit in digits { value = value * 10 + Int64(digit - UInt8(ascii: "0")) }  // 15 digits: no overflow
        return value <= 253_402_300_799_999 ? Timestamp(millisecondsSince1970: value) : nil
    }

    /// What a time field of an event holds.
    enum FieldTime: Equatable {
        /// Absent or null.
        case absent
        /// A time: an ISO 8601 string, or whole milliseconds since 1970 up to the year 9999.
        case at(Timestamp)
        /// Anything else.
        case invalid
    }

    /// The verdict on the event `item` at `index`, whose text `text` holds.
    ///
    /// - Parameters:
    ///   - defaultType: the type assumed when the event has none (`track`, or the
    ///     route's for `/v1/identify` and the like).
    ///   - detailed: false to skip wording the rejection (no reason, no messageId): for
    ///     events past the ones an answer lists, whose refusals are only counted.
    static func check(
        _ item: ParsedItem, index: Int, maxEventBytes: Int, defaultType: EventType = .track, detailed: Bool = true,
        in text: ParsedText
    ) -> Verdict {
        func reject(_ code: String, _ reason: @autoclosure () -> String) -> Verdict {
            guard detailed else { return .invalid(EventRejection(index: index, messageId: nil, code: code, reason: "")) }
            let reason = reason()
            let messageId = item.fields.messageId.flatMap { $0.kind == .string ? text.string($0) : nil }
            return .invalid(
                EventRejection(
                    index: index, messageId: messageId?.isEmpty == false ? messageId : nil, code: code, reason: reason))
        }
        /// The kind of a present, non-null field that is not a string (or a number, when allowed).
        func misfit(_ field: FieldValue?, allowsNumber: Bool = false) -> JSONKind? {
            guard let field, field.kind != .null, field.kind != .string else { return nil }
            return allowsNumber && field.kind == .number ? nil : field.kind
        }
        /// The kind of a present, non-null field that is not an object.
        func misfit(object kind: JSONKind?) -> JSONKind? {
            guard let kind, kind != .null, kind != .object else { return nil }
            return kind
        }
        func notObject(_ name: StaticString, _ kind: JSONKind) -> Verdict {
            reject("wrong_type", "Event \(index): \(name) is a \(kind.name); send it as an object.")
        }
        /// The field read as a time: a string `Timestamp(iso8601:)` accepts, or whole
        /// milliseconds since 1970 up to the year 9999 (FindHotel's client sends those).
        func time(_ field: FieldValue?) -> FieldTime {
            guard let field, field.kind != .null else { return .absent }
            let read = switch field.kind {
            case .number: epochMilliseconds(text.bytes(field))
            case .string: Timestamp(iso8601: text.bytes(field))
            default: Timestamp?.none
            }
            return read.map(FieldTime.at) ?? .invalid
        }
        func notTime(_ name: StaticString) -> Verdict {
            reject(
                "invalid_timestamp",
                "Event \(index): \(name) is not an ISO 8601 date-time; send e.g. 2026-01-31T12:00:00.000Z.")
        }
        /// True when the field is a string or number with at least one byte of text.
        func isNonEmpty(_ field: FieldValue?) -> Bool {
            guard let field, field.hasText else { return false }
            return !text.bytes(field).isEmpty
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
        guard messageIdField.kind == .string else {
            return reject(
                "wrong_type",
                "Event \(index): messageId is a \(messageIdField.kind.name); send it as a string.")
        }
        let messageIdLength = text.bytes(messageIdField).count
        if messageIdLength == 0 {
            return reject("missing_message_id", "Event \(index) has an empty messageId; give every event a unique messageId.")
        }
        if messageIdLength > maxMessageIdLength {
            return reject(
                "message_id_too_long",
                "Event \(index): messageId is longer than \(maxMessageIdLength) bytes; use a UUID.")
        }
        // Only an escape (\u0000, \n, ...) can put a control character in a string: the
        // scanner refuses raw ones, so ids without escapes (nearly all) skip this scan.
        if messageIdField.isDecoded && text.bytes(messageIdField).contains(where: { $0 < 0x20 }) {
            return reject(
                "invalid_message_id",
                "Event \(index): messageId contains a control character (U+0000 to U+001F); use printable text such as a UUID.")
        }
        // After the messageId's own checks, which name a NUL in it more precisely.
        if let problem = item.textProblem {
            return reject(EventTextRule.rejectionCode, "Event \(index) \(EventTextRule.explanation(problem)).")
        }
        var type = defaultType
        if let typeField = fields.type, typeField.kind != .null {
            guard typeField.kind == .string else {
                return reject("wrong_type", "Event \(index): type is a \(typeField.kind.name); send it as a string.")
            }
            guard let known = EventType(text.bytes(typeField)) else {
                return reject(
                    "unknown_type",
                    "Event \(index) has type '\(text.string(typeField) ?? "")'; "
                        + "use track, identify, page, screen, group or alias.")
            }
            type = known
        }
        if let kind = misfit(fields.event) {
            return reject("wrong_type", "Event \(index): event is a \(kind.name); send it as a string.")
        }
        if let kind = misfit(fields.name) {
            return reject("wrong_type", "Event \(index): name is a \(kind.name); send it as a string.")
        }
        if let kind = misfit(fields.userId, allowsNumber: true) {
            return reject("wrong_type", "Event \(index): userId is a \(kind.name); send it as a string.")
        }
        if let kind = misfit(fields.anonymousId, allowsNumber: true) {
            return reject("wrong_type", "Event \(index): anonymousId is a \(kind.name); send it as a string.")
        }
        // Written out rather than looped over an array of fields: no allocation per event.
        if let kind = misfit(object: fields.properties) { return notObject("properties", kind) }
        if let kind = misfit(object: fields.traits) { return notObject("traits", kind) }
        if let kind = misfit(object: fields.context) { return notObject("context", kind) }
        if let kind = misfit(object: fields.integrations) { return notObject("integrations", kind) }
        if type == .track && !isNonEmpty(fields.event) {
            return reject(
                "missing_event_name",
                "Event \(index) is a track call without an event name; set \"event\" to what happened.")
        }
        if !isNonEmpty(fields.userId) && !isNonEmpty(fields.anonymousId) {
            return reject(
                "missing_identity",
                "Event \(index) has neither userId nor anonymousId; set at least one of them.")
        }
        let timestamp = time(fields.timestamp)
        if timestamp == .invalid { return notTime("timestamp") }
        let originalTimestamp = time(fields.originalTimestamp)
        if originalTimestamp == .invalid { return notTime("originalTimestamp") }
        if time(fields.sentAt) == .invalid { return notTime("sentAt") }
        // The time stores keep: `timestamp`, or else `originalTimestamp` (read once, here).
        let eventTime: Timestamp? = switch (timestamp, originalTimestamp) {
        case (.at(let time), _), (.absent, .at(let time)): time
        default: nil
        }
        return .valid(type: type, messageId: messageIdField, time: eventTime)
    }
}
