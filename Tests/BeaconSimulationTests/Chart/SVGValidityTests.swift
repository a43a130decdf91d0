import BeaconSimulation
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// Every rendered document is well-formed XML: parsed with Foundation's `XMLParser` always,
/// and checked with `xmllint --noout` too where xmllint is on PATH.
@Suite struct SVGValidityTests {
    static let documents: [(name: String, svg: String)] = [
        ("offline-burst", SimulationChart.svg(ChartFixtures.offlineBurst(), title: "Offline burst & recovery")),
        ("flaky", SimulationChart.svg(ChartFixtures.flakyCollector(), title: "flaky")),
        ("kill", SimulationChart.svg(ChartFixtures.killRestart(), title: "kill -9")),
        ("empty", SimulationChart.svg(ChartFixtures.empty(), title: "")),
        ("hostile", SimulationChart.svg(ChartFixtures.hostile(), title: "<script>&\"'\u{0}\u{FFFF}" + String(repeating: "é", count: 500))),
        ("one", SimulationChart.svg(ChartFixtures.oneSample(), title: "one", width: 1, height: 1)),
        ("unknown", SimulationChart.svg(ChartFixtures.allUnknown(), title: "unknown")),
        ("zero", SimulationChart.svg(ChartFixtures.zeroDuration(), title: "zero")),
        ("destinations", SimulationChart.svg(ChartFixtures.destinations(), title: "destinations")),
    ]

    @Test(arguments: documents.map(\.name))
    func parsesWithXMLParser(_ name: String) throws {
        let svg = try #require(Self.documents.first { $0.name == name }).svg
        let parser = XMLParser(data: Data(svg.utf8))
        let delegate = RootRecorder()
        parser.delegate = delegate
        #expect(parser.parse(), "\(name): \(parser.parserError.map(String.init(describing:)) ?? "no error")")
        #expect(delegate.root == "svg")
        #expect(delegate.namespace == "http://www.w3.org/2000/svg")
        #expect(!delegate.elements.contains("script") && !delegate.elements.contains("image"))
    }

    @Test(arguments: documents.map(\.name))
    func passesXMLLintWhereInstalled(_ name: String) throws {
        guard let xmllint = Self.executable("xmllint") else { return }
        let svg = try #require(Self.documents.first { $0.name == name }).svg
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("beacon-chart-\(UUID().uuidString).svg")
        try svg.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = xmllint
        process.arguments = ["--noout", "--nonet", file.path]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "xmllint on \(name): \(message)")
    }

    /// The first executable named `name` on PATH.
    static func executable(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}

/// Records the root element, its namespace and every element name.
private final class RootRecorder: NSObject, XMLParserDelegate {
    var root: String?
    var namespace: String?
    var elements: Set<String> = []

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        if root == nil {
            root = elementName
            namespace = attributes["xmlns"] ?? namespaceURI
        }
        elements.insert(elementName)
    }
}
