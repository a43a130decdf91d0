@testable import BeaconCollector
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
            #expect(lines.contains(#"beacon_collector_errors_total{code="missing_identity"} 1"#) || lines.contains(#"beacon_collector_errors_total{code="invalid_events"} 1"#), "\(lines.filter { $0.contains("errors_total") })")
            #expect(lines.contains("# HELP beacon_collector_events_received_total Events in well-formed ingest requests."))
            let types = lines.filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ")[2] }
            let helps = lines.filter { $0.hasPrefix("# HELP ") }.map { $0.split(separator: " ")[2] }
            #expect(!types.isEmpty && Set(types) == Set(helps), "every metric has a # HELP")
        }
    }

    @Test("# HELP goes right before each # TYPE, escaped; a metric nobody described is named as such")
    func helpLines() {
        let text = "# TYPE a_total counter\na_total 1\n# TYPE b gauge\nb{x=\"1\"} 2.0\n"
        let described = PrometheusHelp.insert(["a_total": "A \\ with\nnewline."], into: text)
        #expect(described == "# HELP a_total A \\\\ with\\nnewline.\n# TYPE a_total counter\na_total 1\n"
            + "# HELP b b (no description)\n# TYPE b gauge\nb{x=\"1\"} 2.0\n")
        #expect(PrometheusHelp.insert([:], into: "").isEmpty)
        #expect(PrometheusHelp.insert([:], into: "x 1") == "x 1\n", "a text without a final newline gets one")
    }
}
