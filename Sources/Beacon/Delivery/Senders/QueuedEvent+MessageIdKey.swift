extension QueuedEvent {
    /// An event's `messageId` bytes as a set or dictionary key: compared and hashed byte
    /// for byte (as a collector dedups), without making a `String`.
    struct MessageIdKey: Hashable {
        var bytes: ArraySlice<UInt8>

        init(bytes: ArraySlice<UInt8>) { self.bytes = bytes }

        /// The key of an id given as a string (a rejection's, a classifier's list).
        init(_ id: String) { bytes = Array(id.utf8)[...] }

        static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.bytes == rhs.bytes
        }

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    /// This event's ``MessageIdKey``.
    var messageIdKey: MessageIdKey { MessageIdKey(bytes: messageIdBytes) }
}
