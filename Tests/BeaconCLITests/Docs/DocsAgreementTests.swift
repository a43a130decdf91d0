import Foundation
import Testing

/// The README and `docs/` show what the code and the binary are: every Swift block is a
/// file the package builds, byte for byte; every screen is a golden render of the
/// dashboard's renderer; every relative link reaches a file; the README stays short.
@Suite("README and docs/ show the built code and the binary's screens")
struct DocsAgreementTests {
    /// The package's root.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func read(_ relative: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
    }

    /// README.md and every page of docs/, by path from the root.
    static func pages() throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return ["README.md", "CHANGELOG.md"] + docs
    }

    /// A fenced block: its language tag, its text (without the fences), the line before
    /// its opening fence, and its line number.
    struct Block {
        var language: String
        var text: String
        var marker: String
        var line: Int
    }

    static func blocks(_ page: String) -> [Block] {
        let lines = page.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var found: [Block] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            guard line.hasPrefix("```"), line.count > 3 else { index += 1; continue }
            let language = String(line.dropFirst(3))
            let marker = index > 0 ? lines[index - 1] : ""
            var end = index + 1
            while end < lines.count, lines[end] != "```" { end += 1 }
            found.append(Block(language: language, text: lines[(index + 1)..<min(end, lines.count)].joined(separator: "\n"), marker: marker, line: index + 1))
            index = end + 1
        }
        return found
    }

    /// `<!-- KIND: VALUE -->` → VALUE.
    static func marker(_ line: String, _ kind: String) -> String? {
        let prefix = "<!-- \(kind): ", suffix = " -->"
        guard line.hasPrefix(prefix), line.hasSuffix(suffix) else { return nil }
        return String(line.dropFirst(prefix.count).dropLast(suffix.count))
    }

    /// A file's text as a block shows it: without its final newline.
    static func shown(_ relative: String) throws -> String {
        let text = try read(relative)
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }

    @Test("README.md is at most 300 lines and links every page of docs/")
    func readmeIsShortAndLinksEveryPage() throws {
        let readme = try Self.read("README.md")
        let count = readme.split(separator: "\n", omittingEmptySubsequences: false).count
        #expect(count <= 300, "README.md has \(count) lines")
        for page in try Self.pages() where page.hasPrefix("docs/") {
            #expect(readme.contains("(\(page))") || readme.contains("(\(page)#"), "README.md does not link \(page)")
        }
        #expect(readme.contains("(CHANGELOG.md)"), "README.md does not link CHANGELOG.md")
    }

    @Test("Every Swift block is a file of the package, byte for byte; the README's is the example program")
    func everySwiftBlockIsABuiltFile() throws {
        var shownFiles: Set<String> = []
        for page in try Self.pages() {
            for block in Self.blocks(try Self.read(page)) where block.language == "swift" {
                let file = try #require(
                    Self.marker(block.marker, "example"),
                    "\(page):\(block.line): a swift block without '<!-- example: PATH -->' on the line before it")
                #expect(file.hasPrefix("Examples/"), "\(page):\(block.line): \(file) is not under Examples/ (built by the package)")
                let text = try Self.shown(file)
                #expect(block.text == text, "\(page):\(block.line) differs from \(file): \(GoldenText.firstDifference(text, block.text))")
                shownFiles.insert(file)
            }
        }
        #expect(shownFiles.contains("Examples/QuickStart/QuickStart.swift"), "the README shows the example program")
        let readmeFiles = Self.blocks(try Self.read("README.md")).filter { $0.language == "swift" }.compactMap { Self.marker($0.marker, "example") }
        #expect(readmeFiles == ["Examples/Manifest/Package.swift", "Examples/QuickStart/QuickStart.swift"], "\(readmeFiles)")
        // Every snippet file is shown somewhere: none is left to rot unseen.
        let snippets = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("Examples/Snippets").path)
            .filter { $0.hasSuffix(".swift") && $0 != "Snippets.swift" }.map { "Examples/Snippets/" + $0 }
        for snippet in snippets { #expect(shownFiles.contains(snippet), "\(snippet) is shown by no page") }
    }

    @Test("Every screen shown is a golden render of the renderer; Assets' screens too")
    func everyScreenIsAGolden() throws {
        var goldens: [String] = []
        for page in try Self.pages() {
            for block in Self.blocks(try Self.read(page)) {
                guard let name = Self.marker(block.marker, "golden") else { continue }
                let golden = try Self.shown("Tests/BeaconDashboardTests/Golden/\(name).txt")
                #expect(block.text == golden, "\(page):\(block.line) differs from golden \(name): \(GoldenText.firstDifference(golden, block.text))")
                goldens.append(name)
            }
        }
        #expect(goldens.contains("steady-80x24"), "the README's dashboard at 80x24 is a golden render: \(goldens)")
        #expect(try Self.read("Assets/dashboard-80x24.txt") == Self.read("Tests/BeaconDashboardTests/Golden/steady-80x24.txt"))
        #expect(try Self.read("Assets/dashboard-100x30.txt") == Self.read("Tests/BeaconDashboardTests/Golden/two-destinations-100x30.txt"))
    }

    @Test("Every relative link of the README and docs/ reaches a file")
    func everyLinkResolves() throws {
        for page in try Self.pages() {
            let text = try Self.read(page)
            let base = URL(fileURLWithPath: page).deletingLastPathComponent().relativePath
            var rest = Substring(text)
            while let open = rest.range(of: "](") {
                rest = rest[open.upperBound...]
                guard let close = rest.firstIndex(of: ")") else { break }
                let target = String(rest[..<close])
                rest = rest[close...]
                guard !target.contains("://"), !target.hasPrefix("#"), !target.hasPrefix("mailto:") else { continue }
                let path = String(target.split(separator: "#", maxSplits: 1).first ?? "")
                let resolved = base == "." || base.isEmpty ? path : base + "/" + path
                #expect(
                    FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(resolved).standardizedFileURL.path),
                    "\(page) links \(target), which does not exist")
            }
        }
    }
}

/// Where two texts first differ, for a failure message.
enum GoldenText {
    static func firstDifference(_ expected: String, _ actual: String) -> String {
        let a = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let b = actual.split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0..<max(a.count, b.count) {
            let want = index < a.count ? String(a[index]) : "<none>"
            let got = index < b.count ? String(b[index]) : "<none>"
            if want != got { return "line \(index + 1): file has \(want.debugDescription), page has \(got.debugDescription)" }
        }
        return "no difference"
    }
}
