import Beacon
import BeaconTesting
import Foundation
import Testing

/// Text from outside never reaches the terminal raw (issue 22, F11): a server's error
/// body, a feed's token and a user's argument echoed back in a refusal are printed with
/// their escape sequences written as `\u{…}`.
@Suite("Escape sequences from outside are shown, not obeyed", .timeLimit(.minutes(2)))
struct OutsideTextEscapeTests {
    /// ESC ] 0 ; … BEL retitles the terminal; ESC [ 2 J clears it; CSI (U+009B) is C1.
    static let hostile = "\u{1B}]0;pwned\u{07}\u{1B}[2J\u{9B}31mred\u{2028}next"

    static func expectNoRawControls(_ text: String, _ context: String) {
        let raw = text.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) || $0.value == 0x2028 }
        #expect(raw.isEmpty, "\(context): raw control characters \(raw.map { String($0.value, radix: 16) }) in \(text.debugDescription)")
    }

    @Test("sync prints a server's error body escaped")
    func syncErrorBody() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let body = Array(("oops " + Self.hostile).utf8)
        let server = try TricklingHTTPServer(head: TricklingHTTPServer.head(status: 500, length: body.count), body: body, chunk: body.count, pause: .zero)
        defer { server.stop() }
        let result = try await BeaconProcess.run(["sync", "--db", directory + "/s.sqlite", "--from", server.url + "/v1/config"])
        #expect(result.status == 1, "\(result.stderr)")
        Self.expectNoRawControls(result.stderr, "sync stderr")
        #expect(result.stderr.contains("HTTP 500"), "\(result.stderr)")
        #expect(result.stderr.contains(#"\u{1b}]0;pwned\u{7}\u{1b}[2J\u{9b}31mred\u{2028}next"#), "shown escaped: \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    @Test("sync prints a feed's version token escaped")
    func syncVersionToken() async throws {
        let directory = try BeaconProcess.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let feed = directory + "/feed.json"
        try Data(#"{"settings": {}, "version_token": "v1\u001b[2J\u0007"}"#.utf8).write(to: URL(fileURLWithPath: feed))
        let result = try await BeaconProcess.run(["sync", "--db", directory + "/s.sqlite", "--from", feed])
        #expect(result.status == 0, "\(result.stderr)")
        Self.expectNoRawControls(result.stdout, "sync stdout")
        #expect(result.stdout.contains(#"version_token v1\u{1b}[2J\u{7}"#), "\(result.stdout)")
    }

    @Test("ctl policy echoes a refused policy escaped")
    func ctlPolicyEcho() async throws {
        let served = try await CtlCommandTests.Served.start()
        let result = try await BeaconProcess.run(["ctl", "--db", served.store, "policy", "every\u{1B}[31m 5s"])
        #expect(result.status == 2, "refused as bad input before the engine is asked: \(result.stderr)")
        Self.expectNoRawControls(result.stderr, "ctl policy stderr")
        #expect(result.stderr.contains(#"every\u{1b}[31m 5s"#), "the value is named, escaped: \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        try await served.stop()
    }

    @Test("an unknown ctl verb with an escape sequence is refused escaped (exit 2)")
    func ctlVerbEcho() async throws {
        let result = try await BeaconProcess.run(["ctl", "--db", "/tmp/nowhere.sqlite", "sta\u{1B}[2Jtus"])
        #expect(result.status == 2, "\(result.stderr)")
        Self.expectNoRawControls(result.stderr, "ctl verb stderr")
        #expect(result.stderr.contains(#"sta\u{1b}[2Jtus"#), "\(result.stderr)")
    }
}
