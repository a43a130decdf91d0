@testable import BeaconSnippets
import Testing

/// The docs' examples that need nothing outside the process run here, not only compile:
/// docs/engine.md's testing example sends its one event on the interval it names.
@Suite("docs/ examples that run in the process", .timeLimit(.minutes(1)))
struct DocsSnippetTests {
    @Test func theTestingExampleSendsOneEventOnItsInterval() async throws {
        #expect(try await firstBatchOnTheInterval() == 1)
    }
}
