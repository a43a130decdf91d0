extension QueuedEvent {
    /// An event's `messageId` bytes as a set or dictionary key: compared and hashed byte
    /// for byte (as a collector dedups), without making a `String`.
    struct MessageIdKey: Hashable {
        var bytes: ArraySlice<UInt8>

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
