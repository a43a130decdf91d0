@testable import Beacon
import Foundation
import Testing

@Suite("Sync HTTP fetcher", .timeLimit(.minutes(1)))
struct SyncHTTPFetcherTests {
    @Test("a feed over the size limit is reported as too large, not as invalid JSON")
    func oversizedFeedIsNamed() async throws {
        let settings = String(repeating: #""Event Name Padding","#, count: 60_000)
        let body = #"{"settings": {"blocklist": [\#(settings)"x"]}, "version_token": "big"}"#
        #expect(body.utf8.count > HTTPTransport.responseBodyLimit)
        try await ScriptedServer.run([.status(200, body: body)]) { server in
            let fetcher = SyncHTTPFetcher(url: try #require(URL(string: server.endpoint + "/v1/config")))
            do {
                _ = try await fetcher.fetch(since: nil)
                Issue.record("an oversized feed was returned")
            } catch {
                guard case SyncError.fetch(let reason) = error else {
                    Issue.record("expected a fetch error, got \(error)")
                    return
                }
                #expect(reason.contains("more than \(HTTPTransport.responseBodyLimit) bytes"), "\(reason)")
            }
        }
    }

    @Test("a feed under the limit arrives whole")
    func feedUnderTheLimitArrives() async throws {
        let body = #"{"settings": {"batchSize": 50}, "version_token": "small"}"#
        try await ScriptedServer.run([.status(200, body: body)]) { server in
            let fetcher = SyncHTTPFetcher(url: try #require(URL(string: server.endpoint + "/v1/config")))
            #expect(try await fetcher.fetch(since: nil) == Array(body.utf8))
        }
    }
}
