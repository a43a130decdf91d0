import Foundation
import Testing

/// Compares renders with files under `Tests/BeaconSimulationTests/Golden/`. Set
/// `BEACON_UPDATE_GOLDEN=1` to rewrite the files from the current renderer instead
/// (then review the diff before committing).
enum ChartGolden {
    /// The `Golden` folder beside this file's folder (`Tests/BeaconSimulationTests/Chart/`).
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Golden")

    /// Compares `actual` with `Golden/FILE` (or rewrites it); a difference fails the test
    /// with the first differing line.
    static func expect(_ actual: String, matches file: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = folder.appendingPathComponent(file)
        if ProcessInfo.processInfo.environment["BEACON_UPDATE_GOLDEN"] == "1" {
            try actual.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        if let difference = firstDifference(expected: expected, actual: actual) {
            Issue.record("\(file) differs from Golden/\(file) (BEACON_UPDATE_GOLDEN=1 rewrites it):\n\(difference)",
                         sourceLocation: sourceLocation)
        }
    }

    /// The first line that differs, expected above actual; `nil` when the texts are equal.
    static func firstDifference(expected: String, actual: String) -> String? {
        guard expected != actual else { return nil }
        let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0..<max(expectedLines.count, actualLines.count) {
            let want = index < expectedLines.count ? String(expectedLines[index]) : "<end of file>"
            let got = index < actualLines.count ? String(actualLines[index]) : "<end of file>"
            if want != got { return "line \(index + 1) expected: \(want)\nline \(index + 1) actual:   \(got)" }
        }
        return "the texts differ in a way lines do not show (line endings?)"
    }
}
