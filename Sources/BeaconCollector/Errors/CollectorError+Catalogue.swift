/// Every request-level refusal the collector knows, one constructor per code.
extension CollectorError {
    static func notFound(path: String) -> CollectorError {
        CollectorError(
            status: 404, code: "not_found",
            message: "No route \(path); send events to POST /v1/batch (or /v1/b, /v1/track).")
    }

    static func methodNotAllowed(method: String, path: String, allowed: [String]) -> CollectorError {
        CollectorError(
            status: 405, code: "method_not_allowed",
            message: "\(method) is not allowed on \(path); use \(allowed.joined(separator: " or ")).",
            headers: [("Allow", allowed.joined(separator: ", "))])
    }

    static func adminForbidden() -> CollectorError {
        CollectorError(
            status: 403, code: "admin_forbidden",
            message: "The admin routes answer only to loopback clients; call them from 127.0.0.1 or ::1.")
    }

    static func down() -> CollectorError {
        CollectorError(
            status: 503, code: "collector_down",
            message: "The collector is down (fault injection); retry later or clear the fault with PUT /admin/faults.")
    }

    static func malformedAuthorization(_ detail: String) -> CollectorError {
        CollectorError(
            status: 400, code: "malformed_authorization",
            message: "The Authorization header \(detail); send 'Basic ' + base64(writeKey + \":\").")
    }

    static func missingWriteKey() -> CollectorError {
        CollectorError(
            status: 401, code: "missing_write_key",
            message: "No write key; send Authorization: Basic base64(writeKey + \":\") or a \"writeKey\" field in the body.")
    }

    static func invalidWriteKey() -> CollectorError {
        CollectorError(
            status: 401, code: "invalid_write_key",
            message: "The write key is not one this collector accepts; check the key configured for this source.")
    }

    static func unsupportedEncoding(_ encoding: String) -> CollectorError {
        CollectorError(
            status: 415, code: "unsupported_content_encoding",
            message: "Content-Encoding '\(encoding)' is not supported; send the body plain or with Content-Encoding: gzip.")
    }

    static func requestTooLarge(limit: Int) -> CollectorError {
        CollectorError(
            status: 413, code: "request_too_large",
            message: "The request body is larger than \(limit) bytes; send fewer events per batch.")
    }

    static func decompressedTooLarge(limit: Int) -> CollectorError {
        CollectorError(
            status: 413, code: "decompressed_too_large",
            message: "The gzip body inflates past \(limit) bytes; send fewer events per batch.")
    }

    static func invalidGzip(_ detail: String) -> CollectorError {
        CollectorError(
            status: 400, code: "invalid_gzip",
            message: "The body is not valid gzip (\(detail)); compress the whole body with gzip or drop Content-Encoding.")
    }

    static func emptyBody() -> CollectorError {
        CollectorError(
            status: 400, code: "empty_body",
            message: "The request body is empty; send a JSON object such as {\"batch\":[...]}.")
    }

    static func invalidUTF8() -> CollectorError {
        CollectorError(
            status: 400, code: "invalid_utf8",
            message: "The request body is not valid UTF-8; encode the JSON as UTF-8.")
    }

    static func invalidJSON(_ syntax: JSONSyntaxError) -> CollectorError {
        CollectorError(
            status: 400, code: "invalid_json",
            message: "The body is not valid JSON (\(syntax.message) at byte \(syntax.offset)); send one JSON object.")
    }

    static func bodyNotObject(found: JSONKind) -> CollectorError {
        CollectorError(
            status: 400, code: "body_not_object",
            message: "The body is a JSON \(found.name), not an object; wrap the events as {\"batch\":[...]}.")
    }

    static func missingBatch() -> CollectorError {
        CollectorError(
            status: 400, code: "missing_batch",
            message: "The body has no \"batch\" field; send {\"batch\":[event, ...]} (or POST one event to /v1/track).")
    }

    static func batchNotArray(found: JSONKind) -> CollectorError {
        CollectorError(
            status: 400, code: "batch_not_array",
            message: "\"batch\" is a JSON \(found.name), not an array; send \"batch\":[event, ...].")
    }

    static func emptyBatch() -> CollectorError {
        CollectorError(
            status: 400, code: "empty_batch",
            message: "\"batch\" is an empty array; send at least one event, or send nothing.")
    }

    static func tooManyEvents(count: Int, limit: Int) -> CollectorError {
        CollectorError(
            status: 413, code: "too_many_events",
            message: "The batch has \(count) events, more than the limit of \(limit); split it into smaller batches.")
    }

    static func injectedBatchTooLarge(count: Int, limit: Int) -> CollectorError {
        CollectorError(
            status: 413, code: "injected_batch_too_large",
            message: "The batch has \(count) events and the fault plan refuses more than \(limit); split the batch.")
    }

    static func injectedFailure() -> CollectorError {
        CollectorError(
            status: 500, code: "injected_failure",
            message: "Injected server failure (fault plan); nothing was stored, retry with backoff.")
    }

    static func injectedThrottle(retryAfterSeconds: Int) -> CollectorError {
        CollectorError(
            status: 429, code: "injected_throttle",
            message: "Too many requests (fault plan); nothing was stored, retry after \(retryAfterSeconds) s.",
            headers: [("Retry-After", String(retryAfterSeconds))])
    }

    static func injectedHang(seconds: Double) -> CollectorError {
        CollectorError(
            status: 503, code: "injected_hang",
            message: "The request was held for \(seconds) s (fault plan); nothing was stored, retry it.")
    }

    static func storageFailed() -> CollectorError {
        CollectorError(
            status: 500, code: "storage_failed",
            message: "The collector could not store the batch; nothing was stored, retry later (see the collector log).")
    }

    static func storeUnavailable(retryAfterSeconds: Int) -> CollectorError {
        CollectorError(
            status: 503, code: "store_unavailable",
            // Said of any store (a collector's database, an agent's queue on a full disk),
            // and without "nothing was stored": an agent's commit that outlived its wait
            // may still land, and the resent copy is deduplicated by messageId.
            message: "The store cannot take the batch now (unreachable, busy or failing); send it again after \(retryAfterSeconds) s.",
            headers: [("Retry-After", String(retryAfterSeconds))])
    }

    static func queueFull(_ error: StoreUnavailableError) -> CollectorError {
        CollectorError(
            status: 503, code: "queue_full",
            message: "The queue is full (\(error.reason)); nothing was stored, retry after \(error.retryAfterSeconds) s.",
            headers: [("Retry-After", String(error.retryAfterSeconds))])
    }

    static func bodyReadFailed() -> CollectorError {
        CollectorError(
            status: 400, code: "body_read_failed",
            message: "The request body could not be read to the end; resend the whole request.")
    }

    static func bodyTimeout(_ timeout: Duration) -> CollectorError {
        CollectorError(
            status: 408, code: "body_timeout",
            message: "The request body did not arrive within \(timeout.inSeconds) s of its headers; send the whole body at once.",
            headers: [("Connection", "close")])
    }

    static func malformedHTTP(_ detail: String) -> CollectorError {
        CollectorError(
            status: 400, code: "malformed_http",
            message: "The request is not well-formed HTTP/1.1 (\(detail)); check the request line, the header syntax and "
                + "Content-Length or Transfer-Encoding (not both).")
    }

    static func tooManyConnections(limit: Int) -> CollectorError {
        CollectorError(
            status: 503, code: "too_many_connections",
            message: "The collector already has \(limit) connections open; retry later, or reuse one connection for many requests.",
            headers: [("Retry-After", "1")])
    }

    static func invalidFaultPlan(_ detail: String) -> CollectorError {
        CollectorError(
            status: 400, code: "invalid_fault_plan",
            message: "The fault plan is invalid: \(detail)")
    }
}
