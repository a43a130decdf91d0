import BeaconPlan
import BeaconWire
import Foundation
import Testing

/// The official JSON-Schema-Test-Suite, draft-07 and 2020-12, the files of every keyword
/// ``JSONSchema`` checks (copied into `Suite/` with the suite's licence). Each group's schema
/// must compile and every test's verdict be the suite's; or, for a group built on what
/// Beacon refuses (a remote or `$id`-based `$ref`, a `format` it does not assert, a keyword
/// outside the table), the schema must be refused at compile time naming that, never
/// silently accepted. ``refusedGroups`` counts them per file; docs/plans.md has the table.
/// 2020-12's `format.json` is left out: it tests `format` as an annotation, and a plan
/// asserts it (the format-assertion vocabulary); `JSONSchemaFormatTests` test the formats.
@Suite struct JSONSchemaSuiteTests {
    struct Group: Decodable {
        var description: String
        var schema: JSONValue
        var tests: [Case]
    }

    struct Case: Decodable {
        var description: String
        var data: JSONValue
        var valid: Bool
    }

    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Suite")

    static func files(_ draft: SchemaDraft) -> [String] {
        let folder = directory.appendingPathComponent(draft == .draft7 ? "draft7" : "draft2020-12")
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
            .map { folder.appendingPathComponent($0).path }
    }

    /// The files with groups Beacon refuses, and how many: each is built on something the
    /// validator refuses by design (``refusals``). Every other group of every file compiles
    /// and passes all its tests.
    static let refusedGroups: [String: Int] = [
        "draft-07/definitions.json": 1, "draft-07/format.json": 13, "draft-07/ref.json": 16,
        "2020-12/defs.json": 1, "2020-12/not.json": 1, "2020-12/ref.json": 17,
    ]

    /// What a refusal may name: a `$ref` out of the schema (a remote document, the
    /// metaschema, a URN), `$id` below the root, `$anchor`, the `unevaluated*` keywords, a
    /// `format` other than date-time, date, email, uuid and uri.
    static let refusals = [
        "does not point into this schema", "the keyword \"$id\"", "the keyword \"$anchor\"",
        "the keyword \"unevaluatedProperties\"", "the keyword \"unevaluatedItems\"", "the keyword \"format \"",
    ]

    static let arguments: [(SchemaDraft, String)] = SchemaDraft.allCases.flatMap { draft in files(draft).map { (draft, $0) } }

    @Test(arguments: arguments)
    func everyTestOfTheFilePasses(draft: SchemaDraft, file: String) throws {
        let groups = try JSONDecoder().decode([Group].self, from: Data(contentsOf: URL(fileURLWithPath: file)))
        let name = "\(draft.rawValue)/\(URL(fileURLWithPath: file).lastPathComponent)"
        var passed = 0
        var refused: [String] = []
        for group in groups {
            let schema: JSONSchema
            do {
                schema = try JSONSchema(group.schema, draft: draft)
            } catch {
                refused.append("\(group.description): \(error)")
                continue
            }
            for test in group.tests {
                #expect(schema.validates(test.data) == test.valid, "\(name) · \(group.description) · \(test.description)")
                // The collecting walk agrees with the yes-or-no one.
                #expect(schema.violations(of: test.data).isEmpty == test.valid, "\(name) · \(group.description) · \(test.description): violations")
                passed += 1
            }
        }
        #expect(refused.count == Self.refusedGroups[name] ?? 0, "\(name) refused:\n\(refused.joined(separator: "\n"))")
        for refusal in refused {
            #expect(Self.refusals.contains { refusal.contains($0) }, "\(name): refused for a reason not documented: \(refusal)")
        }
        #expect(passed + refused.count > 0, "\(name): nothing ran")
    }
}
