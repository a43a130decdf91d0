import BeaconTesting
import BeaconCollector
import BeaconWire
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Numbers the collector reads from outside (Content-Length, the fault plan's numbers,
/// numbers and times inside events) at their extremes: each is a typed refusal (a 4xx
/// JSON error with a code) or an acceptance, never a trap or a hang.
@Suite("Collector numbers from outside")
struct CollectorNumbersFromOutsideTests {
    static let contentLengths = [
        "0", "-0", "+5", "-1", "1e3", "NaN", "inf", " 5", "5 ", "0x10", "", "05", "9223372036854775807",
        "9223372036854775808", "18446744073709551615", "18446744073709551616", "99999999999999999999999999999",
        "512001", "512000",
    ]

    /// A length the parser accepts but the body does not fill is cut by the body timeout
    /// (short here): 408 `body_timeout`, also a typed refusal.
    @Test("Content-Length at its extremes: a JSON 4xx, never a hang", arguments: contentLengths)
    func contentLength(value: String) async throws {
        let configuration = CollectorConfiguration(limits: CollectorLimits(bodyReadTimeout: .milliseconds(500)))
        try await withCollector(configuration) { _, port in
            let request = bytes("POST /v1/batch HTTP/1.1\r\nHost: x\r\nContent-Length: \(value)\r\nConnection: close\r\n\r\n{}")
            let exchange = try await RawConnection.exchange(port: port, chunks: [request], deadline: .seconds(5))
            let text = String(decoding: exchange.received.prefix(300), as: UTF8.self)
            #expect(exchange.closedByServer, "no answer within 5 s: \(text)")
            let status = try #require(exchange.status, "\(text)")
            #expect((400..<500).contains(status), "\(text)")
            let json = try JSONDecoder().decode(JSONValue.self, from: Data(exchange.body))
            #expect(ErrorResponse(json: json)?.error?.isEmpty == false, "\(text)")
        }
    }

    static let numbers = [
        "0", "-0", "-0.0", "1e300", "-1e300", "1e309", "-1e309", "1e-400", "9223372036854775807", "9223372036854775808",
        "-9223372036854775809", "18446744073709551616", "123456789012345678901234567890123456789", "NaN", "Infinity",
        "-Infinity", #""NaN""#, #""1e300""#, "null", "true", "{}", "[]", #"{"n":1e300}"#, "[1e300,-0]", "0.5", "2.5", "-1",
    ]

    @Test("Numbers and times inside events: 200 or a typed 400, never a trap")
    func numbersInEvents() async throws {
        try await withCollector { collector, port in
            let accepted = try await withClient(port: port) { client in
                var accepted = 0
                for (index, number) in Self.numbers.enumerated() {
                    for field in ["timestamp", "originalTimestamp", "sentAt", "anonymousId", "properties", "revenue"] {
                        let event =
                            field == "revenue"
                            ? #"{"event":"E","messageId":"n-\#(index)-\#(field)","userId":"u","properties":{"revenue":\#(number)}}"#
                            : #"{"event":"E","messageId":"n-\#(index)-\#(field)","userId":"u","\#(field)":\#(number)}"#
                        for body in [batchBody([event]), batchBody([trackJSON(messageId: "s-\(index)-\(field)")], extra: #","sentAt":\#(number)"#)] {
                            let answer = try await call(client, .post, "/v1/batch", body: body)
                            let context = "\(field)=\(number): \(answer.status) \(answer.text.prefix(200))"
                            if answer.status == 200 {
                                accepted += answer.json["stored"] as? Int ?? 0
                            } else {
                                #expect(answer.status == 400, "\(context)")
                                let code = answer.rejected.first?["code"] as? String ?? answer.errorCode
                                #expect(
                                    ["wrong_type", "invalid_timestamp", "invalid_json", "missing_identity"].contains(code ?? ""),
                                    "\(context)")
                            }
                        }
                    }
                }
                return accepted
            }
            #expect(try await collector.storedCount() == accepted)
            #expect(accepted > 0)
        }
    }

    static let planNumbers = ["0", "-0", "1", "-1", "0.5", "1e300", "-1e300", "1e-400", "9223372036854775807", "9223372036854775808", "18446744073709551616", #""1""#, "null", "true", "[]", "{}", "NaN"]

    @Test("The fault plan's numbers at their extremes: 200 or 400 invalid_fault_plan, and the collector keeps serving")
    func faultPlanNumbers() async throws {
        try await withCollector { collector, port in
            try await withClient(port: port) { client in
                for field in ["failRate", "throttleRate", "retryAfter", "latencyMs", "retryAfterSeconds", "latencyMilliseconds", "hangRate", "hangSeconds", "resetRate", "maxBatchEvents"] {
                    for number in Self.planNumbers {
                        let answer = try await call(client, .put, "/admin/faults", body: bytes(#"{"\#(field)":\#(number)}"#))
                        let context = "\(field)=\(number): \(answer.status) \(answer.text.prefix(200))"
                        #expect(answer.status == 200 || answer.errorCode == "invalid_fault_plan", "\(context)")
                        // Back to no faults before the next value.
                        let reset = try await call(client, .put, "/admin/faults", body: bytes(#"{"preset":"none"}"#))
                        #expect(reset.status == 200)
                    }
                }
                let health = try await call(client, .get, "/health")
                #expect(health.status == 200)
            }
            #expect(collector.faultPlan() == FaultPlan.none)
        }
    }
}
