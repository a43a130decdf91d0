import Beacon
import BeaconWire
import Testing

/// Every row of the classification table, as pure values.
@Suite("HTTPResponseClassifier")
struct HTTPResponseClassifierTests {
    let classifier = HTTPResponseClassifier()
    let ids = ["m0", "m1", "m2", "m3", "m4"]
    let now = Timestamp(millisecondsSince1970: 784_111_777_000)  // Sun, 06 Nov 1994 08:49:37 GMT

    func classify(_ status: Int, headers: [String: String] = [:], body: String = "") -> SendOutcome {
        classifier.classify(status: status, headers: headers, body: Array(body.utf8), messageIds: ids, now: now)
    }

    // MARK: 2xx

    @Test("2xx delivers", arguments: [200, 201, 202, 204, 299])
    func successDelivers(status: Int) {
        #expect(classify(status, body: #"{"message":"ignored"}"#) == .delivered)
    }

    /// A batch's ids are made (a `String` per event) only for an answer that may name its
    /// events: never for a delivery.
    @Test("the messageIds are read only for a 400 or 422", arguments: [200, 204, 401, 413, 429, 500, 400, 422])
    func messageIdsReadOnlyForRejections(status: Int) {
        var reads = 0
        func batchIds() -> [String] {
            reads += 1
            return ids
        }
        _ = classifier.classify(status: status, headers: [:], body: Array(#"{"rejected":[{"index":1}]}"#.utf8), messageIds: batchIds(), now: now)
        #expect(reads == (status == 400 || status == 422 ? 1 : 0))
    }

    // MARK: 400 and 422

    @Test("400 with a rejected list matches by messageId, in batch order, with reasons")
    func rejectedByMessageId() {
        let body = #"{"error":"invalid_events","message":"2 refused","rejected":["#
            + #"{"index":4,"messageId":"m4","reason":"name is empty"},{"index":0,"messageId":"m0","reason":"too large"}]}"#
        #expect(classify(400, body: body) == .rejected([
            EventRejection(index: 0, messageId: "m0", reason: "HTTP 400: too large"),
            EventRejection(index: 4, messageId: "m4", reason: "HTTP 400: name is empty"),
        ]))
    }

    @Test("400 entries without a messageId match by index")
    func rejectedByIndex() {
        let body = #"{"rejected":[{"index":2,"reason":"bad timestamp"}]}"#
        #expect(classify(400, body: body) == .rejected([EventRejection(index: 2, messageId: "m2", reason: "HTTP 400: bad timestamp")]))
    }

    @Test("a messageId wins over a contradicting index")
    func messageIdWinsOverIndex() {
        let body = #"{"rejected":[{"index":0,"messageId":"m3","reason":"r"}]}"#
        #expect(classify(400, body: body) == .rejected([EventRejection(index: 3, messageId: "m3", reason: "HTTP 400: r")]))
    }

    @Test("ids that differ only in Unicode form are two events: the entry names the one with its bytes")
    func idsCompareAsBytes() {
        let composed = "id-\u{E9}", decomposed = "id-e\u{301}"
        #expect(composed == decomposed)  // String's == would take them for one
        let batch = ["m0", composed, decomposed]
        for body in [
            #"{"rejected":[{"messageId":"id-e\u0301","reason":"r"}]}"#,
            #"{"rejected":[{"index":1,"messageId":"id-e\u0301","reason":"r"}]}"#,
            #"{"rejected":[{"index":2,"reason":"r"}]}"#,
        ] {
            let outcome = classifier.classify(status: 400, headers: [:], body: Array(body.utf8), messageIds: batch, now: now)
            guard case .rejected(let rejections) = outcome else {
                Issue.record("not rejected: \(outcome)")
                continue
            }
            #expect(rejections.map(\.index) == [2], "\(body)")
            #expect(rejections.map { Array($0.messageId?.utf8 ?? "".utf8) } == [Array(decomposed.utf8)], "\(body)")
        }
    }

    @Test("an entry without a reason takes the body's message, or a generic one")
    func rejectionReasonFallbacks() {
        #expect(classify(400, body: #"{"message":"invalid batch","rejected":[{"index":1}]}"#)
            == .rejected([EventRejection(index: 1, messageId: "m1", reason: "HTTP 400: invalid batch")]))
        #expect(classify(400, body: #"{"rejected":[{"messageId":"m1"}]}"#)
            == .rejected([EventRejection(index: 1, messageId: "m1", reason: "HTTP 400: refused by the destination")]))
    }

    @Test("unknown messageIds, out-of-range indexes and duplicates are ignored")
    func unusableEntriesAreIgnored() {
        let body = #"{"rejected":[{"messageId":"nope","index":1},{"index":5},{"index":-1},"#
            + #"{"messageId":"m2","reason":"first"},{"index":2,"reason":"second"},"oops",{"index":"3"}]}"#
        #expect(classify(400, body: body) == .rejected([EventRejection(index: 2, messageId: "m2", reason: "HTTP 400: first")]))
    }

    @Test("400 without a usable list asks the batcher to split", arguments: [
        "", "not json", #"{"message":"bad"}"#, #"{"rejected":[]}"#, #"{"rejected":"m1"}"#,
        #"{"rejected":[{"messageId":"other"}]}"#, "[1,2]", "<html>Bad Request</html>",
    ])
    func badRequestWithoutList(body: String) {
        #expect(classify(400, body: body) == .rejected([]))
    }

    @Test("422 reads like 400")
    func unprocessableContent() {
        #expect(classify(422, body: #"{"rejected":[{"index":0,"reason":"r"}]}"#)
            == .rejected([EventRejection(index: 0, messageId: "m0", reason: "HTTP 422: r")]))
        #expect(classify(422) == .rejected([]))
    }

    // MARK: 401, 403, 413

    @Test("401 and 403 are unauthorized, with the server's message when there is one")
    func unauthorized() {
        #expect(classify(401) == .unauthorized(reason: "HTTP 401 Unauthorized"))
        #expect(classify(401, body: #"{"message":"unknown write key"}"#)
            == .unauthorized(reason: "HTTP 401 Unauthorized: unknown write key"))
        #expect(classify(403, body: #"{"error":"source disabled"}"#)
            == .unauthorized(reason: "HTTP 403 Forbidden: source disabled"))
        #expect(classify(403, body: "write key revoked\nsecond line") == .unauthorized(reason: "HTTP 403 Forbidden: write key revoked"))
    }

    @Test("413 is tooLarge, whatever the body")
    func tooLarge() {
        #expect(classify(413) == .tooLarge)
        #expect(classify(413, headers: ["Retry-After": "5"], body: #"{"message":"max 500 KB"}"#) == .tooLarge)
    }

    // MARK: Retryable statuses

    @Test("408, 429 and 5xx are retryable with status and message", arguments: [
        (408, "HTTP 408 Request Timeout"), (429, "HTTP 429 Too Many Requests"),
        (500, "HTTP 500 Internal Server Error"), (502, "HTTP 502 Bad Gateway"),
        (503, "HTTP 503 Service Unavailable"), (504, "HTTP 504 Gateway Timeout"), (599, "HTTP 599"),
    ])
    func retryableStatuses(status: Int, reason: String) {
        #expect(classify(status) == .retryable(reason: reason, retryAfter: nil))
        #expect(classify(status, body: #"{"message":"busy"}"#) == .retryable(reason: reason + ": busy", retryAfter: nil))
    }

    @Test("other 4xx are retryable and point at the configuration", arguments: [
        (404, "HTTP 404 Not Found"), (405, "HTTP 405 Method Not Allowed"),
        (415, "HTTP 415 Unsupported Media Type"), (410, "HTTP 410 Gone"), (418, "HTTP 418"),
    ])
    func otherClientErrors(status: Int, reason: String) {
        let hint = " (check the endpoint and the collector's configuration)"
        #expect(classify(status) == .retryable(reason: reason + hint, retryAfter: nil))
        #expect(classify(status, body: "no route") == .retryable(reason: reason + ": no route" + hint, retryAfter: nil))
    }

    @Test("3xx is retryable and names the redirect target")
    func redirects() {
        #expect(classify(301, headers: ["location": "https://new.example.com/v1/batch"]) == .retryable(
            reason: "HTTP 301 Moved Permanently (redirect to https://new.example.com/v1/batch not followed: check the endpoint)",
            retryAfter: nil))
        #expect(classify(304) == .retryable(
            reason: "HTTP 304 Not Modified (redirect not followed: check the endpoint)", retryAfter: nil))
    }

    @Test("statuses outside 2xx-5xx are retryable", arguments: [0, 100, 199, 600, 999])
    func unexpectedStatuses(status: Int) {
        guard case .retryable(let reason, nil) = classify(status) else {
            Issue.record("expected retryable for \(status)")
            return
        }
        #expect(reason.hasPrefix("HTTP \(status)"))
    }

    // MARK: Retry-After

    @Test("Retry-After is honoured on every retryable status", arguments: [301, 404, 408, 429, 500, 503])
    func retryAfterOnRetryables(status: Int) {
        guard case .retryable(_, let delay) = classify(status, headers: ["Retry-After": "30"]) else {
            Issue.record("expected retryable for \(status)")
            return
        }
        #expect(delay == .seconds(30))
    }

    @Test("Retry-After forms", arguments: [
        ("0", Duration.seconds(0)), ("5", .seconds(5)), (" 12 ", .seconds(12)), ("600", .seconds(600)),
        ("601", .seconds(600)), ("86400", .seconds(600)), ("99999999999999999999999", .seconds(600)),
        ("Sun, 06 Nov 1994 08:50:07 GMT", .seconds(30)), ("Sun, 06 Nov 1994 08:49:37 GMT", .zero),
        ("Sat, 05 Nov 1994 08:49:37 GMT", .zero), ("Mon, 07 Nov 1994 08:49:37 GMT", .seconds(600)),
    ])
    func retryAfterForms(header: String, expected: Duration) {
        #expect(classify(503, headers: ["Retry-After": header])
            == .retryable(reason: "HTTP 503 Service Unavailable", retryAfter: expected))
    }

    @Test("unreadable Retry-After values are ignored", arguments: [
        "", "-1", "1.5", "soon", "5s", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
        "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 6 Nov 1994 08:49:37 GMT", "Xyz, 06 Nov 1994 08:49:37 GMT",
        "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT",
    ])
    func unreadableRetryAfter(header: String) {
        #expect(classify(429, headers: ["Retry-After": header])
            == .retryable(reason: "HTTP 429 Too Many Requests", retryAfter: nil))
    }

    @Test("the Retry-After header name is case-insensitive")
    func retryAfterHeaderCase() {
        #expect(classify(429, headers: ["retry-after": "3"]) == .retryable(reason: "HTTP 429 Too Many Requests", retryAfter: .seconds(3)))
        #expect(classify(429, headers: ["RETRY-AFTER": "4"]) == .retryable(reason: "HTTP 429 Too Many Requests", retryAfter: .seconds(4)))
    }

    @Test("the Retry-After cap is configurable")
    func retryAfterCap() {
        let capped = HTTPResponseClassifier(retryAfter: HTTPRetryAfter(maximum: .seconds(20)))
        let outcome = capped.classify(status: 429, headers: ["Retry-After": "45"], body: [], messageIds: ids, now: now)
        #expect(outcome == .retryable(reason: "HTTP 429 Too Many Requests", retryAfter: .seconds(20)))
        #expect(HTTPRetryAfter.defaultMaximum == .seconds(600))
    }

    // MARK: Messages

    @Test("messages are one line, without control characters, at most 200 characters")
    func messageCleaning() {
        #expect(classify(500, body: #"{"message":"line one\nline\ttwo"}"#)
            == .retryable(reason: "HTTP 500 Internal Server Error: line one line two", retryAfter: nil))
        let long = String(repeating: "x", count: 500)
        guard case .retryable(let reason, _) = classify(500, body: #"{"message":"\#(long)"}"#) else {
            Issue.record("expected retryable")
            return
        }
        #expect(reason == "HTTP 500 Internal Server Error: " + String(repeating: "x", count: 199) + "…")
    }

    @Test("HTML and blank bodies give no message; a message that is not a string is ignored")
    func unusableMessages() {
        #expect(classify(502, body: "<html><body>Bad Gateway</body></html>")
            == .retryable(reason: "HTTP 502 Bad Gateway", retryAfter: nil))
        #expect(classify(502, body: "   \n  ") == .retryable(reason: "HTTP 502 Bad Gateway", retryAfter: nil))
        #expect(classify(500, body: #"{"message":42}"#) == .retryable(reason: "HTTP 500 Internal Server Error", retryAfter: nil))
    }

    // MARK: Transport failures

    @Test("every transport failure is retryable with no delay", arguments: [
        (HTTPTransportFailure.timedOut, "timed out waiting for the destination"),
        (.connectionRefused, "connection refused"),
        (.connectionLost, "connection lost (reset or closed by the destination)"),
        (.hostNotFound, "host not found (DNS)"),
        (.notConnected, "no network connection"),
        (.secureConnectionFailed("bad certificate"), "TLS failed: bad certificate"),
        (.badResponse("garbage"), "bad HTTP response: garbage"),
        (.cancelled, "send cancelled"),
        (.other("URLError -1"), "network error: URLError -1"),
    ])
    func transportFailures(failure: HTTPTransportFailure, reason: String) {
        #expect(classifier.classify(failure) == .retryable(reason: reason, retryAfter: nil))
    }
}
