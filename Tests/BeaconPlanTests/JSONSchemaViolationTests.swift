import BeaconPlan
import BeaconWire
import Testing

/// What a failing value is told: every violation, where in the value, which keyword, why.
@Suite struct JSONSchemaViolationTests {
    static let order: JSONValue = [
        "type": "object",
        "required": ["order_id", "items"],
        "additionalProperties": false,
        "properties": [
            "order_id": ["type": "string", "pattern": "^ord_[0-9]+$"],
            "price": ["type": "number", "minimum": 0],
            "currency": ["enum": ["EUR", "USD"]],
            "items": [
                "type": "array", "minItems": 1,
                "items": ["type": "object", "required": ["sku"], "properties": ["sku": ["type": "string"], "quantity": ["type": "integer"]]],
            ],
        ],
    ]

    @Test func eachViolationSaysWhereAndWhy() throws {
        let schema = try JSONSchema(Self.order, draft: .draft7)
        let violations = schema.violations(of: [
            "order_id": "42", "price": "12.50", "currency": "GBP", "coupon": "X",
            "items": [["sku": "a", "quantity": 1.5], ["quantity": 2]],
        ])
        let described = Set(violations.map(\.description))
        #expect(described == [
            #"/coupon: the property "coupon" is not allowed (additionalProperties)"#,
            "/order_id: does not match ^ord_[0-9]+$ (pattern)",
            "/price: expected number, got string (type)",
            "/currency: not one of the 2 values allowed (enum)",
            "/items/0/quantity: expected integer, got number (type)",
            #"/items/1: missing "sku" (required)"#,
        ], "\(violations)")
        let price = try #require(violations.first { $0.instancePath == "/price" })
        #expect(price.schemaPath == "/properties/price/type" && price.keyword == "type")
        #expect(schema.violations(of: ["order_id": "ord_1", "items": [["sku": "a", "quantity": 2.0]]]).isEmpty, "2.0 is an integer")
        #expect(schema.violations(of: [:]).map(\.description) == [#"(the value): missing "order_id", "items" (required)"#])
    }

    @Test func anUnsupportedKeywordIsRefusedNotIgnored() {
        for (schema, place) in [
            (JSONValue.object(["properties": ["a": ["unevaluatedProperties": false]]]), "/properties/a/unevaluatedProperties"),
            (["$dynamicRef": "#meta"], "/$dynamicRef"), (["items": [["type": "string"]]], "/items"),
            (["x-custom": true], "/x-custom"),
        ] {
            #expect(throws: SchemaError.self, "\(place)") { try JSONSchema(schema, draft: .draft2020_12) }
            do {
                _ = try JSONSchema(schema, draft: .draft2020_12)
            } catch {
                #expect(error.path == place, "\(error)")
            }
        }
        // A draft-07 keyword in a 2020-12 schema, and the other way round.
        #expect(throws: SchemaError.self) { try JSONSchema(["dependencies": ["a": ["b"]]], draft: .draft2020_12) }
        #expect(throws: SchemaError.self) { try JSONSchema(["prefixItems": [true]], draft: .draft7) }
    }

    @Test func theDraftsReadTheirOwnTuplesAndReferences() throws {
        let seven = try JSONSchema(["items": [["type": "string"]], "additionalItems": false], draft: .draft7)
        #expect(seven.validates(["a"]) && !seven.validates(["a", "b"]) && !seven.validates([1]))
        let twenty = try JSONSchema(["prefixItems": [["type": "string"]], "items": false], draft: .draft2020_12)
        #expect(twenty.validates(["a"]) && !twenty.validates(["a", "b"]))
        // Draft-07: a $ref overrides its siblings; 2020-12 applies both.
        let schema: JSONValue = ["definitions": ["n": ["type": "number"]], "$defs": ["n": ["type": "number"]], "$ref": "#/definitions/n", "maximum": 1]
        #expect(try JSONSchema(schema, draft: .draft7).validates(5))
        #expect(!(try JSONSchema(schema, draft: .draft2020_12).validates(5)))
        #expect(SchemaDraft(schemaURI: "http://json-schema.org/draft-07/schema#") == .draft7)
        #expect(SchemaDraft(schemaURI: "https://json-schema.org/draft/2020-12/schema") == .draft2020_12)
        #expect(SchemaDraft(schemaURI: "http://json-schema.org/draft-04/schema#") == nil)
    }
}
