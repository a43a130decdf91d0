import BeaconPlan
import BeaconWire
import Foundation
import Testing

/// A Segment tracking plan's rules, as its Public API and Terraform provider write them
/// (`Plans/segment-ecommerce.json`: Segment's e-commerce spec, twelve track events, one in
/// two versions, identify, group, a page and the common rule), read and checked.
@Suite struct SegmentTrackingPlanTests {
    static func plan() throws -> TrackingPlan {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Plans/segment-ecommerce.json")
        return try TrackingPlan(segmentRules: try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: url)))
    }

    static let product: JSONValue = ["product_id": "p1", "price": 12.5, "quantity": 2]

    @Test func itsRulesLoadWithTheHighestVersionOfEach() throws {
        let plan = try Self.plan()
        #expect(plan.rules.count == 14, "12 track events, identify, group and a page: \(plan.rules.keys)")
        #expect(!plan.common.isEmpty)
        #expect(plan.rules[.init(call: .track, name: "Order Completed")]?.version == 2)
    }

    @Test func aPlannedEventThatHoldsHasNoViolation() throws {
        let check = try Self.plan().check([
            "type": "track", "event": "Order Completed",
            "properties": ["order_id": "ord_1", "total": 25, "currency": "EUR", "products": [Self.product], "coupon": .null,
                           "shipping_address": ["country": "FR"]],
            "context": ["app": ["version": "2.4.1"]],
        ])
        #expect(check.isPlanned && check.version == 2 && check.violations.isEmpty, "\(check.violations)")
    }

    @Test func eachViolationOfAPlannedEventIsNamed() throws {
        let check = try Self.plan().check([
            "type": "track", "event": "Order Completed",
            "properties": ["order_id": "42", "total": "25", "currency": "JPY", "products": [["product_id": "p1"]],
                           "shipping_address": ["country": "France"]],
            "context": ["app": ["version": "2.4"]],
        ])
        #expect(check.isPlanned)
        #expect(Set(check.violations.map(\.description)) == [
            "/properties/order_id: does not match ^ord_[0-9A-Za-z]+$ (pattern)",
            "/properties/total: expected number, got string (type)",
            "/properties/currency: not one of the 3 values allowed (enum)",
            #"/properties/products/0: missing "price" (required)"#,
            "/properties/shipping_address/country: 6 characters, more than 2 (maxLength)",
            "/context/app/version: does not match ^[0-9]+\\.[0-9]+\\.[0-9]+$ (pattern)",
        ], "\(check.violations.map(\.description))")
    }

    @Test func anUnplannedEventIsSaidToBeUnplannedAndStillMeetsTheCommonRule() throws {
        let plan = try Self.plan()
        let check = plan.check(["type": "track", "event": "Order Complete", "properties": [:], "context": ["app": ["version": "x"]]])
        #expect(!check.isPlanned && check.rule == nil)
        #expect(check.violations.map(\.instancePath) == ["/context/app/version"])
        // No call at all, or alias: nothing plans it.
        #expect(!plan.check(["type": "alias", "previousId": "a"]).isPlanned)
        #expect(!plan.check("not an event").isPlanned)
    }

    @Test func identifyGroupAndPageAreCheckedByTheirOwnRules() throws {
        let plan = try Self.plan()
        let identify = plan.check(["type": "identify", "userId": "u", "traits": ["email": "not-an-email", "plan": "gold"]])
        #expect(identify.isPlanned && Set(identify.violations.map(\.instancePath)) == ["/traits/email", "/traits/plan"], "\(identify.violations)")
        #expect(plan.check(["type": "group", "groupId": "g", "traits": ["name": "Acme", "employees": 12]]).violations.isEmpty)
        let page = plan.check(["type": "page", "name": "Checkout", "properties": ["step": 5]])
        #expect(page.isPlanned && page.violations.map(\.keyword) == ["maximum"])
        #expect(!plan.check(["type": "page", "name": "Home", "properties": [:]]).isPlanned, "no page rule without a name here")
    }

    static let broken: [(json: JSONValue, words: String)] = [
        (JSONValue.object([:]), "the plan: not a Segment tracking plan"),
        (["rules": [["key": "A", "jsonSchema": [:]]]], "/rules/0/type: a rule needs"),
        (["rules": [["type": "TRAK", "key": "A", "jsonSchema": [:]]]], #"/rules/0/type: "TRAK" is not a rule type"#),
        (["rules": [["type": "TRACK", "jsonSchema": [:]]]], "/rules/0/key: a TRACK rule needs the event's name"),
        (["rules": [["type": "TRACK", "key": "A"]]], #"/rules/0: a rule needs its "jsonSchema""#),
        (["rules": [["type": "TRACK", "key": "A", "version": -1, "jsonSchema": [:]]]], "/rules/0/version"),
        (["rules": [["type": "TRACK", "key": "A", "version": 1.5, "jsonSchema": [:]]]], "/rules/0/version"),
        (["rules": [["type": "TRACK", "key": "A", "jsonSchema": ["properties": ["properties": ["unevaluatedProperties": false]]]]]],
         #"/rules/0/jsonSchema/properties/properties/unevaluatedProperties: the keyword "unevaluatedProperties" is not supported"#),
        (["rules": [["type": "TRACK", "key": "A", "jsonSchema": ["$schema": "http://json-schema.org/draft-04/schema#"]]]],
         "/rules/0/jsonSchema/$schema"),
        (["rules": [["type": "COMMON", "jsonSchema": [:]], ["type": "COMMON", "jsonSchema": [:]]]], "/rules/1: a second COMMON rule"),
        (["rules": [["type": "TRACK", "key": "A", "jsonSchema": [:]], ["type": "TRACK", "key": "A", "jsonSchema": [:]]]], "/rules/1: a second rule"),
    ]

    @Test func aBrokenPlanIsRefusedNamingWhere() {
        for (json, words) in Self.broken {
            do {
                _ = try TrackingPlan(segmentRules: json)
                Issue.record("accepted: \(json)")
            } catch {
                #expect("\(error)".contains(words), "\(error)")
            }
        }
    }

    @Test func tooManyRulesAreRefused() {
        let rules = JSONValue.array((0...TrackingPlan.maxRules).map { .object(["type": "TRACK", "key": .string("e\($0)"), "jsonSchema": [:]]) })
        #expect(throws: PlanError.self) { try TrackingPlan(segmentRules: rules) }
    }
}
