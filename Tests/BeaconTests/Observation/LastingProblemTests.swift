@testable import Beacon
import Testing

@Suite("LastingProblem")
struct LastingProblemTests {
    @Test("a problem is news when it starts or changes, not while it repeats; after clear it is news again")
    func newsOnlyWhenItChanges() {
        let problem = LastingProblem()
        let sequence = ["disk I/O error", "disk I/O error", "disk I/O error", "database is locked", "disk I/O error"]
        #expect(sequence.map(problem.isNews) == [true, false, false, true, true])
        problem.clear()
        #expect(problem.isNews("disk I/O error"))
        #expect(!problem.isNews("disk I/O error"))
    }
}
