import Beacon
import BeaconDashboard
import BeaconWire
import Foundation
import Testing

/// The dead-letter workbench: `/` searches, Space marks, Enter opens the whole letter,
/// and retry or purge act on the marked letters or on everything the search finds.
@Suite struct DeadLetterWorkbenchTests {
    static func opened(_ mode: DashboardMode = .demo) -> KeyScript {
        var state = DashboardState(mode: mode)
        state.observe(Fixtures.deadLetters())
        var script = KeyScript(state)
        script.press(.character("d"))
        return script
    }

    /// A whole letter as the store gives it, refused three times.
    static func wholeLetter() -> DeadLetter {
        let payload = Array(#"{"event":"Order Completed","messageId":"0193a7c2-1","properties":{"items":[1,2],"total":"12,50 €"},"type":"track"}"#.utf8)
        let attempts = (1...3).map { number in
            DeadLetterAttempt(
                number: number, reason: "event_too_large: Event 0193a7c2-1 is 41,204 bytes, the limit is 32,768", status: 413,
                failedAt: Timestamp(millisecondsSince1970: Fixtures.t0 - 19_000 + Int64(number) * 5_000))
        }
        return DeadLetter(
            event: QueuedEvent(sequence: 9, messageId: "0193a7c2-1", name: "Order Completed", payload: payload),
            reason: attempts[2].reason, destination: "default", status: 413, failedAt: attempts[2].failedAt, id: 106, attempts: attempts)
    }

    @Test func slashSearchesAndTheListFollowsIt() {
        var script = Self.opened()
        script.press(.character("/"))
        #expect(script.state.prompt?.kind == .deadLetterSearch)
        script.type("reason:LARGE")
        #expect(script.press(.enter) == [])
        #expect(script.state.workbench.query == DeadLetterQuery(reason: "LARGE"))
        #expect(script.state.deadLetterIDs.isEmpty, "nothing to act on until the list is read for the new search")
        script.state.observe(Fixtures.deadLetters())
        #expect(script.state.deadLetterIDs == [106, 104, 102], "the snapshot's letters that match")
        // A read of the store for this search replaces them.
        let page = DeadLetterPage(letters: [Self.wholeLetter()], total: 40)
        script.state.receive(DeadLetterWorkbench.Results(query: DeadLetterQuery(reason: "LARGE"), page: page))
        #expect(script.state.deadLetterIDs == [106])
        // A read for an older search does not.
        script.state.receive(DeadLetterWorkbench.Results(query: DeadLetterQuery(), page: DeadLetterPage(letters: [], total: 0)))
        #expect(script.state.deadLetterIDs == [106])
    }

    @Test func aBadSearchIsRefusedInThePromptAndEscKeepsTheOldOne() {
        var script = Self.opened()
        script.press(.character("/"))
        script.type("dest:")
        script.press(.enter)
        #expect(script.state.prompt?.error == "dest: needs a destination name")
        script.press(.escape)
        #expect(script.state.prompt == nil && script.state.workbench.query.isEmpty)
        #expect(script.state.message?.text == "search unchanged")
    }

    @Test func spaceMarksAndRRetriesTheMarkedLetters() {
        var script = Self.opened()
        script.press(.character(" "), .down, .character(" "))
        #expect(script.state.workbench.marked == [107, 105])
        #expect(script.press(.character("r")) == [.retryDeadLetters(.ids([107, 105]))])
        #expect(script.state.workbench.marked.isEmpty)
        script.press(.character(" "), .character(" "))
        script.press(.up, .character(" "))
        #expect(script.state.workbench.marked.count == 1)
        script.press(.escape)
        #expect(script.state.workbench.marked.isEmpty && script.state.view == .deadLetters, "Esc clears the marks first")
        script.press(.escape)
        #expect(script.state.view == .main)
    }

    @Test func capitalRAndXActOnEverythingTheSearchFinds() {
        var script = Self.opened()
        script.press(.character("/"))
        script.type("reason:too_large")
        script.press(.enter)
        let query = DeadLetterQuery(reason: "too_large")
        script.state.receive(DeadLetterWorkbench.Results(query: query, page: DeadLetterPage(letters: [Self.wholeLetter()], total: 40)))
        #expect(script.press(.character("R")) == [.retryDeadLetters(.matching(query))])
        #expect(script.state.message?.text == "retrying the 40 dead letters matching 'reason:too_large'")
        script.press(.character("X"))
        #expect(script.state.confirmation == .purge(.matching(query, count: 40)))
        #expect(script.press(.character("y")) == [.purgeDeadLetters(.matching(query))])
    }

    @Test func attachedTheBulkRetryAsksFirstAndNamesWhatItTakes() {
        var script = Self.opened(.attached)
        script.press(.character("/"))
        script.type("checkout")
        script.press(.enter)
        script.state.observe(Fixtures.deadLetters())
        #expect(script.press(.character("R")) == [])
        #expect(script.state.message?.text == "retry every dead letter matching 'checkout' on the live engine? y confirms, any other key cancels")
        #expect(script.press(.character("y")) == [.retryDeadLetters(.matching(DeadLetterQuery(text: "checkout")))])
    }

    @Test func enterOpensTheWholeLetterAndItsKeysActOnIt() {
        var script = Self.opened()
        script.press(.down, .enter)
        #expect(script.state.workbench.detail?.id == 106)
        script.state.receive(
            DeadLetterWorkbench.Results(query: DeadLetterQuery(), letters: Fixtures.deadLetters().recentDeadLetters, total: 7),
            detail: (106, Self.wholeLetter()))
        #expect(script.state.workbench.detail?.letter?.attemptCount == 3)
        script.press(.down, .down)
        #expect(script.state.workbench.detail?.scroll == 2)
        #expect(script.press(.character("R")) == [], "bulk keys wait until the letter is closed")
        script.press(.character("x"))
        #expect(script.state.confirmation == .purge(.ids([106])))
        #expect(script.press(.character("y")) == [.purgeDeadLetters(.ids([106]))])
        #expect(script.state.workbench.detail == nil, "the purged letter's pane closes")
        script.press(.enter, .escape)
        #expect(script.state.workbench.detail == nil && script.state.view == .deadLetters)
    }

    @Test func theDetailPaneShowsEveryAttemptAndTheWholeEvent() throws {
        var state = DashboardState(mode: .demo)
        state.observe(Fixtures.deadLetters())
        for key: Key in [.character("d"), .down, .enter] { state = DashboardReducer.reduce(state, key).0 }
        state.receive(
            DeadLetterWorkbench.Results(query: DeadLetterQuery(), letters: Fixtures.deadLetters().recentDeadLetters, total: 7),
            detail: (106, Self.wholeLetter()))
        let text = DashboardRenderer.render(snapshot: Fixtures.deadLetters(), state: state, size: (80, 24)).text
        #expect(text.contains("Dead letter 106"))
        #expect(text.contains("messageId 0193a7c2-1"))
        for number in 1...3 { #expect(text.contains("attempt \(number) "), "attempt \(number): \(text)") }
        #expect(text.contains("\"event\": \"Order Completed\""), "the event, indented: \(text)")
        try expectGolden("dead-letter-detail-80x24", Fixtures.deadLetters(), state, 80, 24)
        for _ in 0..<30 { state = DashboardReducer.reduce(state, .down).0 }
        let end = DashboardRenderer.render(snapshot: Fixtures.deadLetters(), state: state, size: (80, 24)).text
        #expect(end.contains("\"total\": \"12,50 €\"") && end.contains("\"type\": \"track\""), "the whole event: \(end)")
        #expect(!end.contains("messageId 0193a7c2-1"), "scrolled to the end: \(end)")
    }

    @Test func aSearchWithMarksAt80Columns() throws {
        var state = DashboardState(mode: .demo)
        state.observe(Fixtures.deadLetters())
        for key: Key in [.character("d"), .character("/")] { state = DashboardReducer.reduce(state, key).0 }
        for character in "order" { state = DashboardReducer.reduce(state, .character(character)).0 }
        try expectGolden("dead-letter-search-prompt-80x24", Fixtures.deadLetters(), state, 80, 24)
        state = DashboardReducer.reduce(state, .enter).0
        state.observe(Fixtures.deadLetters())
        for key: Key in [.character(" "), .character(" ")] { state = DashboardReducer.reduce(state, key).0 }
        #expect(state.workbench.marked == [106, 104])
        try expectGolden("dead-letter-search-marked-80x24", Fixtures.deadLetters(), state, 80, 24)
    }
}
