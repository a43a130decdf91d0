import BeaconWire

extension WireEvent {
    /// An event a collector's ingest has already checked (``init(json:defaultType:maxEventBytes:)``
    /// makes the same checks, which are the collector's), taken with the fields the ingest
    /// read, without reading its JSON again: `beacon agent`'s path, where decoding every event a
    /// second time cost most of the CPU.
    ///
    /// Only the size is checked again. An event that did not name its own type (so `type`
    /// must be written into its JSON), or whose `timestamp` text does not read, goes the
    /// whole way through ``init(json:defaultType:maxEventBytes:)``.
    ///
    /// - Parameters:
    ///   - namesItsType: whether the JSON holds `type` as a string; `type` is then that string.
    ///   - name: `event` for `track`, `name` for the others (kept for `page` and `screen` only).
    ///   - timestamp: the `timestamp` (or else `originalTimestamp`) text: ISO 8601 or whole
    ///     milliseconds since 1970.
    public init(
        checkedJSON json: [UInt8], messageId: String, type: String, namesItsType: Bool, name: String?,
        timestamp: String?, maxEventBytes: Int = WireLimits.maxEventBytes
    ) throws(TrackingError) {
        guard namesItsType, Self.types.contains(type), !messageId.isEmpty,
            messageId.utf8.count <= Self.maxMessageIdBytes
        else {
            try self.init(json: json, defaultType: type, maxEventBytes: maxEventBytes)
            return
        }
        guard json.count <= maxEventBytes else { throw .eventTooLarge(bytes: json.count, limit: maxEventBytes) }
        var time: Timestamp?
        if let timestamp {
            guard let read = Self.time(timestamp) else {
                try self.init(json: json, defaultType: type, maxEventBytes: maxEventBytes)
                return
            }
            time = read
        }
        self.init(
            messageId: messageId, type: type, name: type == "track" || type == "page" || type == "screen" ? name : nil,
            timestamp: time, json: json)
    }

    /// An ISO-8601 time, or whole milliseconds since 1970 up to the end of 9999.
    private static func time(_ text: String) -> Timestamp? {
        let digits = text.utf8
        if (1...15).contains(digits.count), digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            var value: Int64 = 0
            for digit in digits { value = value * 10 + Int64(digit - UInt8(ascii: "0")) }  // 15 digits: no overflow
            return value <= 253_402_300_799_999 ? Timestamp(millisecondsSince1970: value) : nil
        }
        return Timestamp(iso8601: text)
    }
}
