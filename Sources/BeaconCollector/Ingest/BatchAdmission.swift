import BeaconWire

/// Decides whether a parsed ingest body is stored: all of it when every event is valid
/// and no `messageId` repeats, otherwise none of it, with the offending events listed.
/// Pure: a parsed body in, a verdict out.
enum BatchAdmission {
    /// The offending events of a refused body: the first ``ErrorResponse/maximumListedRejections``
    /// described, the rest only counted, so the work and the answer stay bounded however
    /// many events the body holds.
    struct Refusal: Sendable {
        /// The first offending events, in index order, with their reasons.
        var listed: [EventRejection]
        /// How many events were refused in all.
        var total: Int
        /// How many events were refused for each code.
        var countsByCode: [String: Int]
    }

    /// The decision on one body.
    enum Verdict: Sendable {
        /// Store every event; the type of each, in order, and the time of each as the
        /// checks read it (see ``EventValidator/Verdict/valid(type:messageId:time:)``).
        case accept([EventType], times: [Timestamp?])
        /// Store nothing (a repeated `messageId` counts at its second and later positions).
        case refuse(Refusal)
    }

    /// The decision on `parsed`, whose events default to `defaultType`.
    static func decide(
        _ parsed: ParsedBody, defaultType: EventType, maxEventBytes: Int,
        maxListed: Int = ErrorResponse.maximumListedRejections
    ) -> Verdict {
        parsed.withText { text in
            var refusal = Refusal(listed: [], total: 0, countsByCode: [:])
            var types: [EventType] = []
            var times: [Timestamp?] = []
            types.reserveCapacity(parsed.items.count)
            times.reserveCapacity(parsed.items.count)
            var seen = MessageIdSet(capacity: parsed.items.count)
            for (index, item) in parsed.items.enumerated() {
                let detailed = refusal.listed.count < maxListed
                let verdict = EventValidator.check(
                    item, index: index, maxEventBytes: maxEventBytes, defaultType: defaultType, detailed: detailed,
                    in: text)
                switch verdict {
                case .invalid(let rejection):
                    refusal.add(rejection, detailed: detailed)
                case .valid(let type, let messageId, let time):
                    guard seen.insert(messageId, in: text) else {
                        let rejection: EventRejection
                        if detailed {
                            let id = text.string(messageId) ?? ""
                            rejection = EventRejection(
                                index: index, messageId: id, code: "duplicate_message_id",
                                reason: "Event \(index) repeats messageId '\(id)' from earlier in the batch; "
                                    + "give every event its own messageId.")
                        } else {
                            rejection = EventRejection(index: index, messageId: nil, code: "duplicate_message_id", reason: "")
                        }
                        refusal.add(rejection, detailed: detailed)
                        continue
                    }
                    if refusal.total == 0 {
                        types.append(type)
                        times.append(time)
                    }
                }
            }
            return refusal.total == 0 ? .accept(types, times: times) : .refuse(refusal)
        }
    }
}

extension BatchAdmission.Refusal {
    fileprivate mutating func add(_ rejection: EventRejection, detailed: Bool) {
        total += 1
        countsByCode[rejection.code, default: 0] += 1
        if detailed { listed.append(rejection) }
    }
}
