import Beacon
import Testing

/// Policy intervals are whole milliseconds (issue 22, F12): a sub-millisecond or
/// fractional-millisecond interval is refused naming the value, never rounded to another
/// policy; NaN, infinities, huge and negative numbers get a clear refusal too.
@Suite("Flush policy parser: whole milliseconds")
struct FlushPolicyWholeMillisecondsTests {
    static func refusal(_ text: String) -> FlushPolicyParseError? {
        do {
            let policy = try FlushPolicy(parsing: text)
            Issue.record("'\(text)' was accepted as \(policy)")
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: ["every 0.5ms", "0.5ms", "every 1.5ms", "every 0.0001s", "every 1.0005s", "count 5 or every 2.25ms", "every 1e-7s", "0.00001m"])
    func fractionalMillisecondsAreRefused(text: String) throws {
        let error = try #require(Self.refusal(text))
        #expect(error.description.contains(text), "names the value: \(error)")
        #expect(error.reason.contains("whole number of milliseconds"), "\(error.reason)")
    }

    @Test(arguments: [
        ("every 1ms", FlushPolicy.interval(.milliseconds(1))), ("every 1.5s", .interval(.milliseconds(1500))),
        ("every 1.1s", .interval(.milliseconds(1100))), ("0.3s", .interval(.milliseconds(300))),
        ("2.5m", .interval(.seconds(150))), ("every 0.001s", .interval(.milliseconds(1))), ("1e3ms", .interval(.seconds(1))),
        ("every 0.1h", .interval(.seconds(360))),
    ])
    func wholeMillisecondsAreAccepted(text: String, expected: FlushPolicy) throws {
        #expect(try FlushPolicy(parsing: text) == expected)
    }

    @Test(arguments: [
        ("every nans", "not a finite number"), ("every infs", "not a finite number"), ("every -infms", "not a finite number"),
        ("every 1e300s", "out of range"), ("every -5s", "out of range"), ("every -0.5ms", "out of range"),
        ("every 0s", "longer than zero"), ("every 0ms", "longer than zero"),
    ])
    func hostileNumbersGetAClearRefusal(text: String, reason: String) throws {
        let error = try #require(Self.refusal(text))
        #expect(error.reason.contains(reason), "\(text): \(error.reason)")
        #expect(error.description.contains(text))
    }

    @Test func parseDurationRefusesFractionsOfAMillisecond() {
        #expect(FlushPolicy.parseDuration("0.5ms") == nil)
        #expect(FlushPolicy.parseDuration("1.5s") == .milliseconds(1500))
    }
}
