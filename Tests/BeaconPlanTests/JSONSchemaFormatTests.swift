import BeaconPlan
import BeaconWire
import Testing

/// The five `format`s a plan asserts, each at its edges; a value that is not a string passes.
@Suite struct JSONSchemaFormatTests {
    static func holds(_ format: String, _ value: JSONValue) throws -> Bool {
        try JSONSchema(["format": .string(format)], draft: .draft2020_12).validates(value)
    }

    @Test(arguments: [
        ("date-time", "2026-12-04T03:12:00Z", true), ("date-time", "2026-12-04t03:12:00.123+01:30", true),
        ("date-time", "1998-12-31T23:59:60Z", true), ("date-time", "1998-12-31T15:59:60-08:00", true),
        ("date-time", "1998-12-31T22:59:60Z", false), ("date-time", "2026-02-29T00:00:00Z", false),
        ("date-time", "2026-12-04 03:12:00Z", false), ("date-time", "2026-12-04T24:00:00Z", false),
        ("date-time", "2026-12-04T03:12:00", false), ("date-time", "2026-12-04T03:12:00.Z", false),
        ("date-time", "2026-12-04T03:12:00+25:00", false), ("date-time", "", false),
        ("date", "2024-02-29", true), ("date", "2100-02-29", false), ("date", "2026-13-01", false),
        ("date", "2026-1-01", false), ("date", "２０２６-01-01", false),
        ("email", "joe.bloggs@example.com", true), ("email", "a+tag@sub.example.co", true),
        ("email", "2962", false), ("email", ".joe@example.com", false), ("email", "joe..b@example.com", false),
        ("email", "joe@-example.com", false), ("email", "joe bloggs@example.com", false), ("email", "@example.com", false),
        ("uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d16380", true), ("uuid", "2EB8AA08-AA98-11EA-B4AA-73B441D16380", true),
        ("uuid", "2eb8aa08aa9811eab4aa73b441d16380", false), ("uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d1638g", false),
        ("uri", "https://example.com/a?b=c#d", true), ("uri", "urn:isbn:0451450523", true), ("uri", "mailto:a@b.c", true),
        ("uri", "//example.com", false), ("uri", "https://exa mple.com", false), ("uri", "https://example.com/%zz", false),
        ("uri", "1http://example.com", false), ("uri", "https://example.com/%4", false),
    ])
    func aStringIsCheckedAgainstItsFormat(format: String, text: String, valid: Bool) throws {
        #expect(try Self.holds(format, .string(text)) == valid, "\(format) \(text)")
    }

    @Test func aValueThatIsNotAStringPasses() throws {
        for format in ["date-time", "date", "email", "uuid", "uri"] {
            for value: JSONValue in [12, 13.7, .object([:]), .array([]), false, .null] {
                #expect(try Self.holds(format, value), "\(format) \(value)")
            }
        }
    }

    @Test func aFormatItDoesNotAssertIsRefusedNamingIt() {
        #expect {
            try JSONSchema(["properties": ["ip": ["format": "ipv4"]]], draft: .draft7)
        } throws: { error in
            "\(error)" == #"at /properties/ip/format: the keyword "format "ipv4"" is not supported (docs/plans.md lists those that are)"#
        }
    }
}
