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
            default: assertionFailure("unexpected header \(name) on \(error.code)")
            }
        }
        return response
    }

    /// The 400 answer to a batch with invalid events: nothing stored, each invalid event listed.
    static func invalidEvents(_ rejections: [EventRejection], total: Int, code: String) -> Response {
        let message =
            rejections.count == 1 && total == 1
            ? "The event is invalid (\(rejections[0].reason)) Nothing was stored."
            : "\(rejections.count) of \(total) events are invalid; nothing was stored. "
                + "Drop or fix the events listed in \"rejected\" and resend the others."
        var writer = JSONWriter(capacity: 128 + rejections.count * 160)
        writer.writeRaw(#"{"error":"#.utf8)
        writer.write(code)
        writer.writeRaw(#","message":"#.utf8)
        writer.write(message)
        writer.writeRaw(#","rejected":["#.utf8)
        for (position, rejection) in rejections.enumerated() {
            if position > 0 { writer.writeByte(UInt8(ascii: ",")) }
            writer.writeRaw(#"{"index":"#.utf8)
            writer.write(rejection.index)
            writer.writeRaw(#","messageId":"#.utf8)
            if let messageId = rejection.messageId { writer.write(messageId) } else { writer.writeRaw("null".utf8) }
            writer.writeRaw(#","code":"#.utf8)
            writer.write(rejection.code)
            writer.writeRaw(#","reason":"#.utf8)
            writer.write(rejection.reason)
            writer.writeByte(UInt8(ascii: "}"))
        }
        writer.writeRaw("]}".utf8)
        return json(writer.bytes, status: 400)
    }

    /// The 200 answer to a stored batch.
    static func accepted(received: Int, stored: Int, duplicates: Int) -> Response {
        var writer = JSONWriter(capacity: 96)
        writer.writeRaw(#"{"success":true,"received":"#.utf8)
        writer.write(received)
        writer.writeRaw(#","stored":"#.utf8)
        writer.write(stored)
        writer.writeRaw(#","duplicates":"#.utf8)
        writer.write(duplicates)
        writer.writeByte(UInt8(ascii: "}"))
        return json(writer.bytes)
    }
}
