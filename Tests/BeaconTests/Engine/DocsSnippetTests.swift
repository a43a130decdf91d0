@testable import BeaconSnippets
import Testing

/// The docs' examples that need nothing outside the process run here, not only compile:
/// docs/engine.md's testing example sends its one event on the interval it names;
/// docs/plans.md's schema example finds the violations it names.
@Suite("docs/ examples that run in the process", .timeLimit(.minutes(1)))
struct DocsSnippetTests {
    @Test func theTestingExampleSendsOneEventOnItsInterval() async throws {
        #expect(try await firstBatchOnTheInterval() == 1)
    }

    /// docs/plans.md's example says what its comment says.
    @Test func thePlansExampleFindsBothViolations() throws {
        #expect(try orderViolations(["price": "12.50"]) == ["/price: expected number, got string (type)", #"(the value): missing "order_id" (required)"#])
        #expect(try orderViolations(["order_id": "ord_1", "price": 3]).isEmpty)
    }
}
