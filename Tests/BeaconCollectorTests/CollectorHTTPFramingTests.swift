import BeaconTesting
import BeaconCollector
import BeaconWire
import Foundation
import Testing

/// Requests the HTTP parser refuses before any route sees them still get a JSON error body
/// (`{"error":"malformed_http",…}`) that `ErrorResponse` reads, and the connection is closed.
@Suite("Collector HTTP framing refusals")
struct CollectorHTTPFramingTests {
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var request: [UInt8]
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "Content-Length not a number",
            request: bytes("POST /v1/batch HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}")),
        Case(
            name: "negative Content-Length",
            request: bytes("POST /v1/batch HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n{}")),
        Case(
            name: "Content-Length past UInt64",
            request: bytes("POST /v1/batch HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n{}")),
        Case(
            name: "two different Content-Lengths",
            request: bytes("POST /v1/batch HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}")),
        Case(
            name: "headers of 100 KB",
            request: bytes("GET /health HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 100 * 1024))\r\n\r\n")),
        Case(
            name: "Content-Length with Transfer-Encoding",
            request: bytes(
                "POST /v1/batch HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")),
        Case(name: "bare LF line ends", request: bytes("GET /health HTTP/1.1\nHost: x\n\n")),
        Case(name: "unknown method", request: bytes("BREW /health HTTP/1.1\r\nHost: x\r\n\r\n")),
        Case(name: "not HTTP at all", request: bytes("\u{16}\u{03}\u{01}\u{02}\u{00}\u{01}\u{00}\u{01}\u{fc}\r\n\r\n")),
        Case(name: "space in the header name", request: bytes("GET /health HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n")),
    ]

    @Test("A request the HTTP parser refuses is answered 400 with a JSON error", arguments: cases)
    func framingRefusalIsJSON(_ testCase: Case) async throws {
        try await withCollector { collector, port in
            let exchange = try await RawConnection.exchange(port: port, chunks: [testCase.request])
            #expect(exchange.closedByServer)
            #expect(exchange.status == 400, "\(String(decoding: exchange.received.prefix(200), as: UTF8.self))")
            #expect(exchange.head.contains("content-type: application/json"))
            #expect(exchange.head.contains("connection: close"))
            let json = try JSONDecoder().decode(JSONValue.self, from: Data(exchange.body))
            let response = ErrorResponse(json: json)
            #expect(response?.error == "malformed_http")
            #expect(response?.message?.isEmpty == false)
            // The collector still serves afterwards.
            let health = try await RawConnection.exchange(
                port: port, chunks: [bytes("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")])
            #expect(health.status == 200)
            #expect(collector.stats().requests >= 1)
        }
    }

    @Test("A malformed request after a good one on the same connection gets the good answer, then a JSON 400")
    func malformedAfterGood() async throws {
        try await withCollector { _, port in
            let exchange = try await RawConnection.exchange(
                port: port,
                chunks: [bytes("GET /health HTTP/1.1\r\nHost: x\r\n\r\nBREW /health HTTP/1.1\r\nHost: x\r\n\r\n")])
            let text = String(decoding: exchange.received, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 200"))
            #expect(text.contains("HTTP/1.1 400"))
            #expect(text.contains(#""error":"malformed_http""#))
            #expect(exchange.closedByServer)
        }
    }
}
