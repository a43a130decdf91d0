import BeaconWire

extension WireEvent {
    /// An event a collector's ingest has already checked (``init(json:defaultType:maxEventBytes:)``
    /// makes the same checks, which are the collector's), taken with the fields the ingest
    /// read, without reading its JSON again: `beacon agent`'s path, where decoding every event a
    /// second time cost most of the CPU.
    ///
    /// Only the size is checked again. An event that did not name its own type (so `type`
    /// must be written into its JSON) goes the whole way through
    /// ``init(json:defaultType:maxEventBytes:)``.
    ///
    /// - Parameters:
    ///   - namesItsType: whether the JSON holds `type` as a string; `type` is then that string.
    ///   - name: `event` for `track`, `name` for the others (kept for `page` and `screen` only).
    ///   - time: the `timestamp` (or else `originalTimestamp`) as the ingest's checks read it.
    public init(
        checkedJSON json: [UInt8], messageId: String, type: String, namesItsType: Bool, name: String?,
        time: Timestamp?, maxEventBytes: Int = WireLimits.maxEventBytes
    ) throws(TrackingError) {
        guard namesItsType, Self.types.contains(type), !messageId.isEmpty,
            messageId.utf8.count <= Self.maxMessageIdBytes
        else {
            try self.init(json: json, defaultType: type, maxEventBytes: maxEventBytes)
            return
        }
        guard json.count <= maxEventBytes else { throw .eventTooLarge(bytes: json.count, limit: maxEventBytes) }
        self.init(
            messageId: messageId, type: type, name: type == "track" || type == "page" || type == "screen" ? name : nil,
            timestamp: time, json: json)
    }
}
