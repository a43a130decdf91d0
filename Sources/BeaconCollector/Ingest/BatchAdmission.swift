import BeaconWire

/// Decides whether a parsed ingest body is stored: all of it when every event is valid
/// and no `messageId` repeats, otherwise none of it, with each offending event listed.
/// Pure: a parsed body in, a verdict out.
enum BatchAdmission {
    /// The decision on one body.
    enum Verdict: Sendable {
        /// Store every event; the type of each, in order.
        case accept([EventType])
        /// Store nothing; the offending events in index order (a repeated `messageId` is
        /// listed at its second and later positions).
        case refuse([EventRejection])
    }

    /// The decision on `parsed`, whose events default to `defaultType`.
    static func decide(_ parsed: ParsedBody, defaultType: EventType, maxEventBytes: Int) -> Verdict {
        parsed.withText { text in
            var rejections: [EventRejection] = []
            var types: [EventType] = []
            types.reserveCapacity(parsed.items.count)
            var seen = MessageIdSet(capacity: parsed.items.count)
            for (index, item) in parsed.items.enumerated() {
                let verdict = EventValidator.check(
                    item, index: index, maxEventBytes: maxEventBytes, defaultType: defaultType, in: text)
                switch verdict {
                case .invalid(let rejection):
                    rejections.append(rejection)
                case .valid(let type, let messageId):
                    guard seen.insert(messageId, in: text) else {
                        let id = text.string(messageId) ?? ""
                        rejections.append(
                            EventRejection(
                                index: index, messageId: id, code: "duplicate_message_id",
                                reason: "Event \(index) repeats messageId '\(id)' from earlier in the batch; "
                                    + "give every event its own messageId."))
                        continue
                    }
                    if rejections.isEmpty { types.append(type) }
                }
            }
            return rejections.isEmpty ? .accept(types) : .refuse(rejections)
        }
    }
}
