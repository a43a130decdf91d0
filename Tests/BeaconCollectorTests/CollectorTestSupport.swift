import BeaconCollector
import BeaconTesting
import CZlib
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// A decoded HTTP answer.
struct Answer: Sendable {
    var status: Int
    var headers: HTTPFields
    var text: String

    /// The body parsed as a JSON object (empty when it is not one).
    var json: [String: Any] {
        guard let data = text.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [:] }  // not JSON: callers assert on the fields they expect
        return object
    }

    /// `error` of a JSON error body.
    var errorCode: String? { json["error"] as? String }

    /// `rejected` entries of a 400 invalid-events body.
    var rejected: [[String: Any]] { (json["rejected"] as? [[String: Any]]) ?? [] }
}

/// Sends one request on an open test client.
func call(
    _ client: TestClient, _ method: HTTPRequest.Method, _ path: String, body: [UInt8]? = nil,
    headers: HTTPFields = [:]
) async throws -> Answer {
    var headers = headers
    if body != nil && headers[.contentType] == nil { headers[.contentType] = "application/json" }
    let response = try await client.execute(
        TestClient.Request(path, method: method, headers: headers, body: body.map { ByteBuffer(bytes: $0) }))
    let text = response.body.map { String(buffer: $0) } ?? ""
    return Answer(status: Int(response.status.code), headers: response.headers, text: text)
}

/// Opens a test client to the collector on `port` for the duration of `body`.
func withClient<Value: Sendable>(
    port: Int, timeout: Duration = .seconds(10), _ body: @escaping @Sendable (TestClient) async throws -> Value
) async throws -> Value {
    try await TestClient.withClient(
        host: "127.0.0.1", port: port, configuration: TestClient.Configuration(timeout: timeout), operation: body)
}

/// `Basic base64(key + ":")`.
func basicAuthorization(_ key: String) -> String {
    "Basic " + Data((key + ":").utf8).base64EncodedString()
}

/// The UTF-8 bytes of a string.
func bytes(_ text: String) -> [UInt8] {
    Array(text.utf8)
}

/// Compresses bytes with gzip (zlib's deflate with the gzip wrapper).
func gzip(_ input: [UInt8]) -> [UInt8] {
    var stream = z_stream()
    precondition(beacon_deflateInit2(&stream, 6) == Z_OK, "deflateInit2 failed")
    defer { deflateEnd(&stream) }
    var output: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    var input = input
    input.withUnsafeMutableBufferPointer { source in
        stream.next_in = source.baseAddress
        stream.avail_in = uInt(source.count)
        var status: Int32 = Z_OK
        while status != Z_STREAM_END {
            chunk.withUnsafeMutableBufferPointer { buffer in
                stream.next_out = buffer.baseAddress
                stream.avail_out = uInt(buffer.count)
                status = deflate(&stream, Z_FINISH)
            }
            precondition(status == Z_OK || status == Z_STREAM_END, "deflate failed with \(status)")
            output.append(contentsOf: chunk[0..<(chunk.count - Int(stream.avail_out))])
        }
    }
    return output
}

/// A Segment-style track event as JSON text.
func trackJSON(
    messageId: String, event: String = "Order Completed", userId: String? = "u-1", extra: String = ""
) -> String {
    let user = userId.map { #","userId":"\#($0)""# } ?? ""
    return #"{"type":"track","event":"\#(event)","messageId":"\#(messageId)"\#(user),"properties":{"revenue":39.95}\#(extra)}"#
}

/// A batch body around events given as JSON text.
func batchBody(_ events: [String], extra: String = "") -> [UInt8] {
    bytes(#"{"batch":[\#(events.joined(separator: ","))]\#(extra)}"#)
}

/// Runs `body` with a new empty directory, removed afterwards.
func withTemporaryDirectory<Value>(_ body: (URL) async throws -> Value) async throws -> Value {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("beacon-collector-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer {
        do {
            try FileManager.default.removeItem(at: directory)
        } catch {
            Issue.record("could not remove \(directory.path): \(error)")
        }
    }
    return try await body(directory)
}

/// A ``CollectorStore`` for tests that care about only some of it: what a stub does not
/// implement reads as an empty, healthy store.
protocol StubCollectorStore: CollectorStore {}

extension StubCollectorStore {
    func totals() async throws -> StoreTotals { StoreTotals(store: "test", events: 0, batches: 0) }
    func count() async throws -> Int { 0 }
    func messageIds() async throws -> [String] { [] }
    func messageIdBytes() async throws -> [[UInt8]] { [] }
    func events(limit: Int) async throws -> [StoredEvent] { [] }
    func health() async -> StoreHealth { .embedded }
    func run() async {}
}
