import Foundation
import Testing

/// House rules that keep outside values from trapping, checked over every file in
/// `Sources/`: no `try!`, no forced casts, and no conversion of a floating-point value
/// to an integer type unless the line says why it cannot trap (`// checked: …`).
///
/// A grep is blunt by design: it cannot know types, so it looks for the shapes those
/// conversions take here (seconds, rates, doubles, rounding) and asks each such line to
/// carry its reason.
@Suite("Source rules")
struct SourceRulesTests {
    static let sources: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources")

    /// Every Swift line under `Sources/`, with its place.
    static func lines() throws -> [(place: String, text: String)] {
        guard let files = FileManager.default.enumerator(atPath: sources.path) else { return [] }
        var result: [(String, String)] = []
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                result.append(("Sources/\(file):\(number + 1)", String(line)))
            }
        }
        return result
    }

    /// Whether `line` is code rather than a comment.
    static func isCode(_ line: String) -> Bool {
        let trimmed = line.drop { $0 == " " }
        return !trimmed.hasPrefix("//") && !trimmed.hasPrefix("*")
    }

    @Test("the rules see the sources (a check over no files would pass vacuously)")
    func sourcesAreThere() throws {
        #expect(try Self.lines().count > 10_000)
    }

    @Test("no try! and no forced casts in Sources")
    func noForcedTries() throws {
        let offending = try Self.lines().filter { Self.isCode($0.text) && ($0.text.contains("try!") || $0.text.contains(" as! ")) }
        #expect(offending.isEmpty, "\(offending.map { "\($0.place): \($0.text)" }.joined(separator: "\n"))")
    }

    @Test("every floating-point-to-integer conversion says why it cannot trap")
    func integerConversionsAreChecked() throws {
        let conversion = try Regex(#"\b(U?Int(8|16|32|64)?)\((?!saturating:|clamping:|truncatingIfNeeded:|exactly:)([^()]|\([^()]*\))*(Double|[sS]econds\b|[rR]ate\b|\.rounded|\b1e[0-9]|[dD]ouble|\bshare\b|\bratio\b)"#)
        let offending = try Self.lines().filter { line in
            Self.isCode(line.text) && line.text.contains(conversion) && !line.text.contains("// checked:")
        }
        #expect(offending.isEmpty, "\(offending.map { "\($0.place): \($0.text)" }.joined(separator: "\n"))")
    }
}
