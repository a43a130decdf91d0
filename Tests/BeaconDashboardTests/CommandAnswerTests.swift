import BeaconDashboard
import Testing

@Suite("What a command answered")
struct CommandAnswerTests {
    @Test("a refusal or no answer replaces the key's message, as an error; applied leaves it")
    func messages() {
        #expect(CommandAnswer.applied.message == nil)
        #expect(CommandAnswer.refused("the engine is offline; send 'online' first").message
            == StatusMessage("refused: the engine is offline; send 'online' first", severity: .error))
        #expect(CommandAnswer.noAnswer("no engine serves q.sqlite").message == StatusMessage("no answer: no engine serves q.sqlite", severity: .error))
    }
}
