import BeaconWire
import Foundation
import Testing

/// The one sanitizer for outside text on its way to a terminal (issue 22, F11).
@Suite("PrintableText")
struct PrintableTextTests {
    @Test(arguments: [
        ("\u{1B}]0;pwned\u{07}\u{1B}[2J", #"\u{1b}]0;pwned\u{7}\u{1b}[2J"#),
        ("a\nb\r\tc", #"a\u{a}b\u{d}\u{9}c"#),
        ("csi\u{9B}31m del\u{7F}", #"csi\u{9b}31m del\u{7f}"#),
        ("line\u{2028}para\u{2029}", #"line\u{2028}para\u{2029}"#),
        ("abc\u{202E}txt.exe", #"abc\u{202e}txt.exe"#),
        ("plain café 日本 👩‍👩‍👧", "plain café 日本 👩‍👩‍👧"),
    ])
    func lineEscapesWhatCouldDriveATerminal(text: String, shown: String) {
        #expect(PrintableText.line(text) == shown)
        #expect(PrintableText.line(shown) == shown, "applying it again changes nothing")
        #expect(!PrintableText.line(text).unicodeScalars.contains(where: PrintableText.isUnsafe))
    }

    @Test func compactJSONStaysTheSameValue() throws {
        let json = #"{"name":"a"# + "\u{9B}\u{2028}\u{7F}" + #"b"}"#
        let shown = PrintableText.compactJSON(json)
        #expect(shown == #"{"name":"a\u009b\u2028\u007fb"}"#)
        let before = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String]
        let after = try JSONSerialization.jsonObject(with: Data(shown.utf8)) as? [String: String]
        #expect(before == after && before != nil)
    }
}
