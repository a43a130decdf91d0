import AsyncHTTPClient
import Beacon
import Foundation
import Glibc
import NIOCore
import NIOHTTP1
import Testing

@Suite("HTTPSenderConfiguration")
struct HTTPSenderConfigurationTests {
    @Test("defaults: gzip on at the fastest level, 10 s, Linux User-Agent, batch URL under the endpoint")
    func defaults() throws {
        let configuration = try HTTPSenderConfiguration(endpoint: "http://127.0.0.1:8080", writeKey: "wk")
        #expect(configuration.gzip)
        #expect(configuration.gzipLevel == 1)
        #expect(configuration.requestTimeout == .seconds(10))
        #expect(configuration.userAgent == "beacon-swift/\(HTTPSenderConfiguration.libraryVersion) (Linux)")
        #expect(configuration.retryAfter.maximum == .seconds(600))
        #expect(configuration.batchURL.absoluteString == "http://127.0.0.1:8080/v1/batch")
    }

    @Test("endpoints are normalised", arguments: [
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080/v1/batch"),
        ("http://127.0.0.1:8080/", "http://127.0.0.1:8080/v1/batch"),
        ("HTTPS://api.example.com", "https://api.example.com/v1/batch"),
        ("https://example.com/collector//", "https://example.com/collector/v1/batch"),
        ("  http://[::1]:9000  ", "http://[::1]:9000/v1/batch"),
        ("http://127.0.0.1:65535", "http://127.0.0.1:65535/v1/batch"),
        ("http://127.0.0.1:1", "http://127.0.0.1:1/v1/batch"),
    ])
    func normalisation(endpoint: String, batchURL: String) throws {
        let configuration = try HTTPSenderConfiguration(endpoint: endpoint, writeKey: nil)
        #expect(configuration.batchURL.absoluteString == batchURL)
    }

    @Test("bad endpoints are refused with the problem named", arguments: [
        ("", HTTPEndpointError.Problem.malformed),
        ("ftp://example.com", .unsupportedScheme("ftp")),
        ("localhost:8080", .unsupportedScheme("localhost")),
        ("/v1/batch", .unsupportedScheme("")),
        ("http://", .missingHost),
        ("http:///v1", .missingHost),
        ("http://user:secret@example.com", .credentialsInURL),
        ("http://example.com?key=1", .queryOrFragment),
        ("http://example.com#top", .queryOrFragment),
        ("http://127.0.0.1:99999", .portOutOfRange("99999")),
        ("http://127.0.0.1:65536", .portOutOfRange("65536")),
        ("http://127.0.0.1:0", .portOutOfRange("0")),
        ("http://127.0.0.1:18446744073709551616", .portOutOfRange("18446744073709551616")),
        ("http://[::1]:70000/v1", .portOutOfRange("70000")),
    ])
    func refused(endpoint: String, problem: HTTPEndpointError.Problem) {
        #expect {
            try HTTPSenderConfiguration(endpoint: endpoint, writeKey: "k")
        } throws: { error in
            (error as? HTTPEndpointError)?.problem == problem
        }
    }

    @Test("the error never repeats credentials")
    func credentialsAreNotEchoed() {
        do {
            _ = try HTTPSenderConfiguration(endpoint: "http://user:secret@example.com", writeKey: "k")
            Issue.record("expected an error")
        } catch {
            #expect(!error.description.contains("secret"))
            #expect(error.description.contains("write key"))
        }
    }

    @Test("the Authorization header is Basic base64(writeKey + \":\"), or absent without a key")
    func authorization() throws {
        let withKey = try HTTPSenderConfiguration(endpoint: "http://h", writeKey: "wk_123")
        #expect(withKey.authorizationHeader == "Basic d2tfMTIzOg==")
        let withoutKey = try HTTPSenderConfiguration(endpoint: "http://h", writeKey: nil)
        #expect(withoutKey.authorizationHeader == nil)
    }

    @Test("HTTP client errors map to transport failures", arguments: [
        (HTTPClientError.deadlineExceeded, HTTPTransportFailure.timedOut),
        (HTTPClientError.readTimeout, .timedOut),
        (HTTPClientError.connectTimeout, .timedOut),
        (HTTPClientError.cancelled, .cancelled),
        (HTTPClientError.remoteConnectionClosed, .connectionLost),
        (HTTPClientError.tlsHandshakeTimeout, .secureConnectionFailed("TLS handshake timed out")),
    ])
    func clientErrorMapping(error: HTTPClientError, failure: HTTPTransportFailure) {
        #expect(HTTPTransportFailure(error) == failure)
    }

    @Test("socket errors map by errno", arguments: [
        (ECONNREFUSED, HTTPTransportFailure.connectionRefused),
        (ECONNRESET, .connectionLost),
        (EPIPE, .connectionLost),
        (ETIMEDOUT, .timedOut),
        (ENETUNREACH, .notConnected),
    ])
    func socketErrorMapping(code: Int32, failure: HTTPTransportFailure) {
        #expect(HTTPTransportFailure(IOError(errnoCode: code, reason: "connect")) == failure)
    }

    @Test("channel, parser and task errors map to transport failures")
    func otherErrorMapping() {
        #expect(HTTPTransportFailure(ChannelError.connectTimeout(.seconds(1))) == .timedOut)
        #expect(HTTPTransportFailure(ChannelError.eof) == .connectionLost)
        #expect(HTTPTransportFailure(CancellationError()) == .cancelled)
        guard case .badResponse = HTTPTransportFailure(HTTPParserError.invalidStatus) else {
            Issue.record("a parser error is a bad response")
            return
        }
        guard case .other(let detail) = HTTPTransportFailure(CocoaError(.fileNoSuchFile)) else {
            Issue.record("an unknown error is .other")
            return
        }
        #expect(!detail.isEmpty)
    }
}
