import BeaconWire
import Hummingbird

/// Builds the collector's HTTP responses.
enum ResponseBuilder {
    /// A JSON response.
    static func json(_ bytes: [UInt8], status: Int = 200) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(
            status: HTTPResponse.Status(code: status), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// A plain-text response.
    static func text(_ text: String, contentType: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// The JSON error response for a refusal, with its extra headers.
    static func error(_ error: CollectorError) -> Response {
        var response = json(error.jsonBody, status: error.status)
        for (name, value) in error.headers {
            switch name {
            case "Retry-After": response.headers[.retryAfter] = value
            case "Allow": response.headers[.allow] = value
            case "Connection": response.headers[.connection] = value
            default: assertionFailure("unexpected header \(name) on \(error.code)")
            }
        }
        return response
    }

    /// The 400 answer to a batch with invalid events: nothing stored, the invalid events
    /// listed (the first ``ErrorResponse/maximumListedRejections``) and counted.
    static func invalidEvents(_ refusal: BatchAdmission.Refusal, total: Int, code: String) -> Response {
        let rejections = refusal.listed
        let message =
            refusal.total == 1 && total == 1 && rejections.count == 1
            ? "The event is invalid (\(rejections[0].reason)) Nothing was stored."
            : "\(refusal.total) of \(total) events are invalid; nothing was stored. "
                + "Drop or fix the events listed in \"rejected\" and resend the others."
        let body = ErrorResponse(error: code, message: message, rejected: rejections, rejectedCount: refusal.total)
        return json(body.jsonBytes, status: 400)
    }

    /// The 200 answer to a stored batch.
    static func accepted(received: Int, stored: Int, duplicates: Int) -> Response {
        var writer = JSONWriter(capacity: 96)
        writer.writeRaw(#"{"success":true,"received":"#)
        writer.write(received)
        writer.writeRaw(#","stored":"#)
        writer.write(stored)
        writer.writeRaw(#","duplicates":"#)
        writer.write(duplicates)
        writer.writeByte(UInt8(ascii: "}"))
        return json(writer.bytes)
    }
}
