import BeaconCollector
import BeaconTesting
import Hummingbird
import HummingbirdTesting
import Testing

/// `/metrics` answers Prometheus text from the collector's swift-metrics instruments.
@Suite("Collector metrics")
struct CollectorMetricsTests {
    @Test("/metrics counts received, stored and rejected events and requests by status")
    func prometheusText() async throws {
        try await withCollector { collector, port in
            let metrics = try await withClient(port: port) { client in
                _ = try await call(client, .post, "/v1/batch", body: batchBody((0..<3).map { trackJSON(messageId: "x-\($0)") }))
                _ = try await call(client, .post, "/v1/batch", body: batchBody([trackJSON(messageId: "y", userId: nil)]))
                _ = try await call(client, .post, "/v1/batch", body: bytes("nope"))
                return try await call(client, .get, "/metrics")
            }
            #expect(metrics.status == 200)
            #expect(metrics.headers[.contentType]?.hasPrefix("text/plain") == true)
            let lines = Set(metrics.text.split(separator: "\n").map(String.init))
            #expect(lines.contains("# TYPE beacon_collector_events_received_total counter"))
            #expect(lines.contains("beacon_collector_events_received_total 4"))
            #expect(lines.contains("beacon_collector_events_stored_total 3"))
            #expect(lines.contains(#"beacon_collector_events_rejected_total{reason="missing_identity"} 1"#))
            #expect(lines.contains(#"beacon_collector_requests_total{route="/v1/batch",status="400"} 2"#))
            #expect(collector.metricsText().contains("beacon_collector_request_duration_seconds_bucket"))
        }
    }
}
