import BeaconWire

/// Turns what came back from a `POST /v1/batch` into a ``SendOutcome``: a pure function,
/// so every row of the table below is a unit test.
///
/// | Response                                  | Outcome                                             |
/// |-------------------------------------------|-----------------------------------------------------|
/// | 2xx                                       | `.delivered`                                        |
/// | 400 or 422 with a `rejected` list         | `.rejected(matched events)` — by `messageId` (as bytes), else by `index` |
/// | 400 or 422 without a usable list          | `.rejected([])`: the batcher splits to isolate      |
/// | 401, 403                                  | `.unauthorized`                                     |
/// | 413                                       | `.tooLarge`                                         |
/// | 408, 429, 5xx                             | `.retryable`, honouring `Retry-After`               |
/// | other 4xx (404, 405, 415...)              | `.retryable`: a configuration problem; events kept  |
/// | 1xx, 3xx, anything outside 100...599      | `.retryable`: redirects are not followed            |
/// | transport failure (timeout, refused, DNS) | `.retryable`, no delay                              |
///
/// Reasons are one short line with the status and the server's message when it sent one:
/// `HTTP 503 Service Unavailable: database is down`. `Retry-After` is read on every
/// retryable response (see ``HTTPRetryAfter`` for the forms and the 10-minute cap).
///
/// ```swift
/// let outcome = HTTPResponseClassifier().classify(
///     status: 429, headers: ["Retry-After": "5"], body: [], messageIds: ids, now: .now())
/// // .retryable(reason: "HTTP 429 Too Many Requests", retryAfter: .seconds(5))
/// ```
public struct HTTPResponseClassifier: Sendable, Hashable {
    /// How `Retry-After` values are read and capped.
    public var retryAfter: HTTPRetryAfter

    /// Creates a classifier; `retryAfter` caps server-requested delays (10 minutes by default).
    public init(retryAfter: HTTPRetryAfter = HTTPRetryAfter()) {
        self.retryAfter = retryAfter
    }

    /// Classifies an HTTP response.
    ///
    /// - Parameters:
    ///   - status: The HTTP status code.
    ///   - headers: The response headers; names are matched case-insensitively.
    ///   - body: The response body (read for a message and a `rejected` list).
    ///   - messageIds: The batch's `messageId`s, in the order they were sent: made only
    ///     for a 400 or 422, which may name its events.
    ///   - now: The current time, for a `Retry-After` given as a date.
    public func classify(
        status: Int,
        headers: [String: String],
        body: [UInt8],
        messageIds: @autoclosure () -> [String],
        now: Timestamp
    ) -> SendOutcome {
        if (200...299).contains(status) { return .delivered }
        let errorBody = HTTPErrorBody(parsing: body)
        let reason = Self.reason(status: status, message: errorBody.message)
        switch status {
        case 400, 422:
            return .rejected(Self.rejections(in: errorBody, status: status, messageIds: messageIds()))
        case 401, 403:
            return .unauthorized(reason: reason)
        case 413:
            return .tooLarge
        default:
            var reason = reason
            if (300...399).contains(status) {
                let location = Self.header("Location", in: headers).map { " to \($0)" } ?? ""
                reason += " (redirect\(location) not followed: check the endpoint)"
            } else if (400...499).contains(status), status != 408, status != 429 {
                reason += " (check the endpoint and the collector's configuration)"
            }
            let delay = Self.header("Retry-After", in: headers).flatMap { retryAfter.delay(from: $0, now: now) }
            return .retryable(reason: reason, retryAfter: delay)
        }
    }

    /// Classifies an exchange that ended without a response: always retryable, no delay.
    public func classify(_ failure: HTTPTransportFailure) -> SendOutcome {
        .retryable(reason: failure.reason, retryAfter: nil)
    }

    /// `HTTP 503 Service Unavailable: message`, or without the message when there is none.
    static func reason(status: Int, message: String?) -> String {
        var text = "HTTP \(status)"
        if let phrase = HTTPStatusPhrase.phrase(for: status) { text += " \(phrase)" }
        if let message { text += ": \(message)" }
        return text
    }

    /// The batch's events named by the body's `rejected` list, in batch order, each once.
    /// Entries naming no event of this batch are ignored; if none is left the list is
    /// empty, which tells the batcher to split the batch and find the culprit itself.
    static func rejections(in body: HTTPErrorBody, status: Int, messageIds: [String]) -> [EventRejection] {
        guard let entries = body.rejected, !entries.isEmpty else { return [] }
        // Ids compare as bytes, as the collector dedups: `String`'s `==` would take two
        // ids that differ only in Unicode form for one and name the wrong event.
        var positions: [QueuedEvent.MessageIdKey: Int] = [:]
        for (position, id) in messageIds.enumerated() {
            let key = QueuedEvent.MessageIdKey(id)
            if positions[key] == nil { positions[key] = position }
        }
        var reasons: [Int: (code: String, reason: String)] = [:]
        for entry in entries {
            let index = entry.index.flatMap { messageIds.indices.contains($0) ? $0 : nil }
            let position: Int?
            if let id = entry.messageId {
                // The id decides; the index only picks among copies of it.
                if let index, messageIds[index].utf8.elementsEqual(id.utf8) {
                    position = index
                } else {
                    position = positions[QueuedEvent.MessageIdKey(id)]
                }
            } else {
                position = index
            }
            guard let position, reasons[position] == nil else { continue }
            let detail = entry.reason.isEmpty ? body.message ?? "refused by the destination" : entry.reason
            reasons[position] = (entry.code, "HTTP \(status): \(detail)")
        }
        return reasons.sorted { $0.key < $1.key }.map { position, named in
            EventRejection(index: position, messageId: messageIds[position], code: named.code, reason: named.reason)
        }
    }

    /// The value of header `name`, matched case-insensitively.
    static func header(_ name: String, in headers: [String: String]) -> String? {
        if let value = headers[name] { return value }
        let lowered = name.lowercased()
        return headers.first { $0.key.lowercased() == lowered }?.value
    }
}
