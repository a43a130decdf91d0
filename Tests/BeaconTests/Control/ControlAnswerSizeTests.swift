import Beacon
import BeaconWire
import Foundation
import Testing

/// Answers too long for the control channel (issue 22, F9): a clear error at once, never
/// a wait for a timeout. The limits are lowered here so the test stays small; the real
/// ones are ``ControlProtocol/maxResponseBytes`` on both sides.
@Suite("Control channel: answer size", .timeLimit(.minutes(1)))
struct ControlAnswerSizeTests {
    static func socketPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("beacon-answer-\(UUID().uuidString.prefix(8)).sqlite").path
    }

    /// Answers `status` with a string of `bytes` bytes.
    static func server(at store: String, answering bytes: Int, maxResponseBytes: Int) async throws -> ControlServer {
        try await ControlServer.start(path: ControlProtocol.socketPath(forStore: store), maxResponseBytes: maxResponseBytes) { _ in
            .success(["blob": .string(String(repeating: "x", count: bytes))])
        }
    }

    @Test("an answer over the client's limit is an error naming the limit, at once")
    func clientLimitIsNamed() async throws {
        let store = Self.socketPath()
        let server = try await Self.server(at: store, answering: 10_000, maxResponseBytes: ControlProtocol.maxResponseBytes)
        let started = ContinuousClock.now
        do {
            _ = try await ControlClient(store: store, maxResponseBytes: 4_096).send(.status)
            Issue.record("a 10 KB answer passed a 4 KB limit")
        } catch {
            #expect(error.kind == .badResponse)
            #expect(error.message.contains("longer than 4096 bytes"), "\(error.message)")
        }
        #expect(ContinuousClock.now - started < .seconds(5), "an error at once, not a timeout")
        await server.close()
    }

    @Test("an answer over the engine's limit is refused with its size and the limit")
    func serverLimitIsARefusal() async throws {
        let store = Self.socketPath()
        let server = try await Self.server(at: store, answering: 10_000, maxResponseBytes: 4_096)
        let response = try await ControlClient(store: store).send(.status)
        guard case .failure(let refusal) = response.outcome else {
            Issue.record("a 10 KB answer was sent past a 4 KB limit")
            await server.close()
            return
        }
        #expect(refusal.reason.contains("more than the 4096 a control response may hold"), "\(refusal.reason)")
        await server.close()
    }

    @Test("a 4 MB answer arrives whole with the default limits")
    func largeAnswerArrives() async throws {
        let store = Self.socketPath()
        let size = 4 << 20
        let server = try await Self.server(at: store, answering: size, maxResponseBytes: ControlProtocol.maxResponseBytes)
        let response = try await ControlClient(store: store).send(.status)
        guard case .success(let result) = response.outcome else {
            Issue.record("refused: \(response)")
            await server.close()
            return
        }
        #expect(result["blob"]?.stringValue?.utf8.count == size)
        await server.close()
    }
}
