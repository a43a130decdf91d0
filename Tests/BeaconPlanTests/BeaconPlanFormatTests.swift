import BeaconPlan
import BeaconWire
import Foundation
import Testing

/// Beacon's own plan file (`Assets/plans/FORMAT.md`, `Assets/plans/shop.json`): read field
/// by field, each mistake refused naming its place, and its policy applied by `verdict(for:)`.
@Suite struct BeaconPlanFormatTests {
    static let assets = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Assets/plans")

    static func shop() throws -> TrackingPlan {
        try TrackingPlan.load(contentsOf: assets.appendingPathComponent("shop.json").path)
    }

    static let order: JSONValue = [
        "type": "track", "event": "Order Completed",
        "properties": ["order_id": "ord_7", "total": 25, "currency": "EUR", "products": [["product_id": "p1", "price": 12.5, "quantity": 2]]],
        "context": ["app": ["version": "2.4.1"]],
    ]

    static func with(_ event: JSONValue, properties update: [String: JSONValue]) -> JSONValue {
        guard case .object(var fields) = event, case .object(var properties) = fields["properties"] else { return event }
        for (key, value) in update { properties[key] = value == .null ? nil : value }
        fields["properties"] = .object(properties)
        return .object(fields)
    }

    @Test func theExamplePlanLoadsWithItsNameVersionAndPolicy() throws {
        let plan = try Self.shop()
        #expect(plan.format == .beacon)
        #expect(plan.name == "shop" && plan.version == "2026-12-04.1")
        #expect(plan.policy == PlanPolicy(unplannedEvent: .block, unplannedProperty: .omit, invalid: .block))
        #expect(plan.rules.count == 7, "5 track events, identify and every page: \(plan.rules.keys)")
        #expect(plan.common.count == 1)
        #expect(plan.rules[.init(call: .track, name: "Search Performed")]?.policy?.invalid == .allow)
    }

    @Test func aCleanEventIsAllowedUnchanged() throws {
        let verdict = try Self.shop().verdict(for: Self.order)
        #expect(verdict.action == .allow && verdict.isClean, "\(verdict.violations)")
        #expect(verdict.event == Self.order)
        #expect(verdict.rule == .init(call: .track, name: "Order Completed") && verdict.version == 1)
    }

    @Test func aSchemaViolationInsideAReferencedDefinitionBlocksWithItsPath() throws {
        let event = Self.with(Self.order, properties: ["products": [["product_id": "p1", "price": "12.50", "quantity": 0]]])
        let verdict = try Self.shop().verdict(for: event)
        #expect(verdict.action == .block)
        #expect(verdict.violations.map(\.keyword) == ["type", "minimum"], "\(verdict.violations)")
        #expect(Set(verdict.violations.map(\.path)) == ["/properties/products/0/price", "/properties/products/0/quantity"])
        #expect(verdict.violations.allSatisfy { $0.kind == .invalid })
    }

    @Test func unplannedPropertiesAreOmittedAndTheRestGoesOn() throws {
        let event = Self.with(Self.order, properties: ["colour": "red", "internal note": "x"])
        let verdict = try Self.shop().verdict(for: event)
        #expect(verdict.action == .omit)
        #expect(verdict.violations.map(\.path) == ["/properties/colour", "/properties/internal note"])
        #expect(verdict.violations.allSatisfy { $0.kind == .unplannedProperty })
        #expect(verdict.event == Self.order, "the omitted properties are gone, nothing else changed")
    }

    @Test func aMissingRequiredPropertyIsInvalidEvenWithoutAPropertiesObject() throws {
        let verdict = try Self.shop().verdict(for: ["type": "track", "event": "Checkout Started"])
        #expect(verdict.action == .block)
        #expect(verdict.violations.map(\.keyword) == ["required"])
        #expect(verdict.violations.first?.path == "/properties")
    }

    @Test func anUnplannedEventIsBlockedAndNamed() throws {
        let verdict = try Self.shop().verdict(for: ["type": "track", "event": "Order Complete", "properties": [:]])
        #expect(verdict.action == .block)
        #expect(verdict.violations.map(\.kind) == [.unplannedEvent])
        #expect(verdict.violations.first?.message.contains("track \"Order Complete\"") == true)
        #expect(verdict.rule == nil)
    }

    @Test func anEventsOwnPolicyOverridesThePlans() throws {
        let event: JSONValue = ["type": "track", "event": "Search Performed", "properties": ["query": .int(3), "filter_size": "M", "page": 2]]
        let verdict = try Self.shop().verdict(for: event)
        #expect(verdict.action == .allow, "Search Performed allows unplanned properties and violations")
        #expect(verdict.violations.map(\.kind) == [.unplannedProperty, .invalid], "filter_size is planned by its pattern: \(verdict.violations)")
        #expect(verdict.violations.first?.path == "/properties/page")
        #expect(verdict.event == event)
    }

    @Test func theCommonRuleAppliesToEveryCall() throws {
        let page: JSONValue = ["type": "page", "name": "Home", "properties": ["path": "/"], "context": ["app": ["version": "2.4"]]]
        let verdict = try Self.shop().verdict(for: page)
        #expect(verdict.rule == .init(call: .page, name: nil), "the page is planned by \"*\"")
        #expect(verdict.violations.map(\.path) == ["/context/app/version"])
        #expect(verdict.action == .block)
    }

    @Test func identifyIsCheckedByItsTraits() throws {
        let verdict = try Self.shop().verdict(for: ["type": "identify", "userId": "u1", "traits": ["email": "not an address", "plan": "pro", "age": 3]])
        #expect(verdict.violations.map(\.path) == ["/traits/age", "/traits/email"])
        #expect(verdict.violations.map(\.kind) == [.unplannedProperty, .invalid])
        #expect(verdict.event.objectValue?["traits"]?.objectValue?["age"] == nil, "age omitted")
    }

    /// Each mistake in a plan, and the place and reason it is refused with.
    @Test(arguments: [
        (#"{"beaconPlan": 2}"#, "/beaconPlan", "format version 2"),
        (#"{"name": "x", "track": {}}"#, "", "neither a Beacon plan"),
        (#"{"beaconPlan": 1, "trak": {}}"#, "/trak", "not a field"),
        (#"{"beaconPlan": 1, "draft": "draft-04"}"#, "/draft", "not a draft"),
        (#"{"beaconPlan": 1, "onViolation": {"invalid": "omit"}}"#, "/onViolation/invalid", "is not one of \"allow\", \"block\""),
        (#"{"beaconPlan": 1, "onViolation": {"unplannedEvent": true}}"#, "/onViolation/unplannedEvent", "true is not one of"),
        (#"{"beaconPlan": 1, "track": {"A": {"properties": {"type": "obj"}}}}"#, "/track/A/properties/type", "JSON type name"),
        (#"{"beaconPlan": 1, "track": {"a/b": {"traits": {}}}}"#, "/track/a~1b/traits", "not a field"),
        (#"{"beaconPlan": 1, "track": {"": {}}}"#, "/track/", "needs a name"),
        (#"{"beaconPlan": 1, "track": []}"#, "/track", "object of events"),
        (#"{"beaconPlan": 1, "identify": {"properties": {}}}"#, "/identify/properties", "not a field"),
        (#"{"beaconPlan": 1, "track": {"A": {"version": -1}}}"#, "/track/A/version", "not a version"),
        (#"{"beaconPlan": 1, "track": {"A": {"version": 1e300}}}"#, "/track/A/version", "not a version"),
        (#"{"beaconPlan": 1, "track": {"A": {"properties": {"pattern": "(a+)+$"}}}}"#, "/track/A/properties/pattern", "exponential"),
        (#"{"beaconPlan": 1, "track": {"A": {"properties": {"patternProperties": {"(x*)*": {}}}}}}"#, "/track/A/properties/patternProperties", "exponential"),
        (#"{"beaconPlan": 1, "track": {"A": {"properties": {"multipleOf": 0}}}}"#, "/track/A/properties/multipleOf", "finite number above 0"),
        (##"{"beaconPlan": 1, "track": {"A": {"properties": {"$ref": "#/definitions/a"}, "x": 1}}}"##, "/track/A/x", "not a field"),
        (#"{"beaconPlan": 1, "common": {"onViolation": {}}}"#, "/common/onViolation", "follows the plan's"),
        (#"{"beaconPlan": 1, "name": 7}"#, "/name", "not a string"),
        (#"{"beaconPlan": 1,"#, "", "not JSON"),
    ])
    func aMistakeIsRefusedNamingItsPlace(json: String, path: String, reason: String) {
        #expect(throws: PlanError.self) { try TrackingPlan.load(Array(json.utf8)) }
        do {
            _ = try TrackingPlan.load(Array(json.utf8))
        } catch {
            #expect(error.path.hasPrefix(path) && (path.isEmpty ? error.path.isEmpty : true), "\(error)")
            #expect(error.reason.contains(reason), "\(error)")
        }
    }

    @Test func aPlanLargerThanTheBoundIsRefusedBeforeItIsRead() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("plan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }  // a temporary directory
        let path = directory.appendingPathComponent("huge.json").path
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 64 << 20)  // 64 MiB, sparse
        try handle.close()
        #expect { try TrackingPlan.load(contentsOf: path) } throws: { error in
            (error as? PlanError)?.reason.contains("larger than the 16 MiB") == true
        }
        #expect { try TrackingPlan.load(contentsOf: directory.path) } throws: { error in
            (error as? PlanError)?.reason.contains("not a regular file") == true
        }
        #expect { try TrackingPlan.load(contentsOf: directory.appendingPathComponent("missing.json").path) } throws: { error in
            (error as? PlanError)?.reason.contains("cannot read") == true
        }
    }

    @Test func invalidUTF8IsRefusedWithItsOffset() {
        var bytes = Array(#"{"beaconPlan": 1, "name": "caf"#.utf8)
        let offset = bytes.count
        bytes += [0xC3, 0x28] + Array(#""}"#.utf8)
        #expect { try TrackingPlan.load(bytes) } throws: { error in
            (error as? PlanError)?.reason == "not UTF-8 text: an invalid byte at offset \(offset)"
        }
    }

    @Test func nulBytesAndOddNamesAreOrdinaryNames() throws {
        let plan = try TrackingPlan.load(Array(#"{"beaconPlan": 1, "onViolation": {"unplannedEvent": "block"}, "track": {"a\u0000b": {}, "~/x": {}}}"#.utf8))
        #expect(plan.verdict(for: ["type": "track", "event": "a\u{0}b"]).action == .allow)
        #expect(plan.verdict(for: ["type": "track", "event": "~/x"]).action == .allow)
        #expect(plan.verdict(for: ["type": "track", "event": "a"]).action == .block)
    }

    @Test func nestingPastTheLimitIsRefusedNamingWhere() {
        var schema = #"{}"#
        for _ in 0..<(JSONSchema.maxDepth + 2) { schema = #"{"items": "# + schema + "}" }
        let json = #"{"beaconPlan": 1, "track": {"Deep": {"properties": "# + schema + "}}}"
        #expect { try TrackingPlan.load(Array(json.utf8)) } throws: { error in
            guard let error = error as? PlanError else { return false }
            return error.path.hasPrefix("/track/Deep/properties/items/items") && error.reason.contains("deeper than")
        }
    }

    @Test func aReferenceCycleIsRefused() {
        let json = ##"{"beaconPlan": 1, "track": {"A": {"properties": {"$ref": "#/definitions/a", "definitions": {"a": {"$ref": "#/definitions/b"}, "b": {"$ref": "#/definitions/a"}}}}}}"##
        #expect(throws: PlanError.self) { try TrackingPlan.load(Array(json.utf8)) }
    }

    @Test func aSegmentPlanLoadsThroughTheSameEntry() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Plans/segment-ecommerce.json")
        let plan = try TrackingPlan.load(contentsOf: url.path)
        #expect(plan.format == .segment && plan.policy == PlanPolicy())
        #expect(plan.rules[.init(call: .track, name: "Order Completed")]?.planned?.names.contains("order_id") == true)
    }

    /// FORMAT.md's examples are plans that load: every JSON block holding `beaconPlan`,
    /// and each `onViolation` block as a plan's policy.
    @Test func theFormatPagesExamplesLoad() throws {
        let page = try String(contentsOf: Self.assets.appendingPathComponent("FORMAT.md"), encoding: .utf8)
        let blocks = page.components(separatedBy: "```json\n").dropFirst().compactMap { $0.components(separatedBy: "```").first }
        #expect(blocks.count >= 2)
        var plans = 0
        for block in blocks {
            let json = block.contains("\"beaconPlan\"") ? block : #"{"beaconPlan": 1, "onViolation": "# + block + "}"
            let plan = try TrackingPlan.load(Array(json.utf8))
            #expect(plan.format == .beacon)
            plans += block.contains("\"beaconPlan\"") ? 1 : 0
        }
        #expect(plans >= 1)
    }
}
