import Beacon
import BeaconTesting
import BeaconWire
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 42, build 8: every command that would change an engine, applied or refused, is
/// kept in its store with who asked; reads are not; the store keeps the newest 1,000.
@Suite("Operator actions kept in the store", .timeLimit(.minutes(1)))
struct OperatorActionLogTests {
    @Test("Commands through the channel are kept with the peer's uid and pid; reads are not")
    func commandsAreKept() async throws {
        let running = try await ControlChannelTests.Running.start()
        let client = running.client
        _ = try ControlChannelTests.applied(await client.send(.pause(destination: "default")))
        _ = try ControlChannelTests.applied(await client.send(.status))
        _ = try ControlChannelTests.applied(await client.send(.policy("count 7")))
        #expect(ControlChannelTests.refusal(try await client.send(.pause(destination: "nope"))) != nil)
        _ = try ControlChannelTests.applied(await client.send(.deadList(limit: 5)))
        _ = try ControlChannelTests.applied(await client.send(.resume(destination: nil)))
        // Read as `beacon ctl log` reads it: from the store, beside the engine.
        let actions = try await StoreReader(path: running.store).operatorActions(limit: 10)
        #expect(actions.map(\.command) == ["resume", "pause", "policy", "pause"], "newest first, reads left out: \(actions)")
        #expect(actions.map(\.applied) == [true, false, true, true])
        #expect(actions[1].argument == #""nope""# && actions[1].reason?.contains("no destination named") == true)
        #expect(actions[2].argument == #""count 7""#)
        #expect(actions.allSatisfy { $0.peerUID == geteuid() && $0.peerPID == getpid() }, "this process asked")
        #expect(zip(actions, actions.dropFirst()).allSatisfy { $0.id > $1.id && $0.at >= $1.at })
        try await running.stop()
    }

    @Test("operate(_:), a console in the engine's process: ctl's refusals, and each command kept with this process as the peer")
    func operateInProcess() async throws {
        let running = try await ControlChannelTests.Running.start()
        let engine = running.engine
        guard case .success = await engine.operate(.offline) else { throw OperateFailure("offline was refused") }
        // The finding of issue 41: a flush on an offline engine is refused, with the reason.
        guard case .failure(let refusal) = await engine.operate(.flush) else { throw OperateFailure("a flush while offline went through") }
        #expect(refusal.reason == "the engine is offline; send 'online' first")
        guard case .success = await engine.operate(.status) else { throw OperateFailure("status was refused") }
        guard case .success = await engine.operate(.online) else { throw OperateFailure("online was refused") }
        let actions = try await StoreReader(path: running.store).operatorActions(limit: 10)
        #expect(actions.map(\.command) == ["online", "flush", "offline"], "newest first, the read left out: \(actions)")
        #expect(actions.map(\.applied) == [true, false, true])
        #expect(actions[1].reason == refusal.reason)
        #expect(actions.allSatisfy { $0.peerUID == geteuid() && $0.peerPID == getpid() }, "this process gave them")
        try await running.stop()
    }

    struct OperateFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    @Test("The store keeps the newest 1,000, whatever arrives; texts are kept printable and bounded")
    func bounded() async throws {
        let store = try TemporaryStore("operator-actions")
        let path = store.directory + "/s.sqlite"
        let queue = try SQLiteEventQueue(path: path)
        let odd = "pause \u{0}\u{1F600}" + String(repeating: "x", count: 10_000)
        for index in 0..<1_010 {
            try await queue.recordOperatorAction(OperatorAction(
                at: Timestamp(millisecondsSince1970: Int64(index)), command: index == 1_009 ? odd : "flush", argument: nil,
                applied: index % 2 == 0, reason: index % 2 == 0 ? nil : "offline", peerUID: .max, peerPID: .max))
        }
        let kept = try await queue.operatorActions(limit: 5_000)
        #expect(kept.count == OperatorAction.kept)
        // The newest first; a NUL and the rest written out, and cut to the bound.
        let newest = try #require(kept.first?.command)
        #expect(newest.hasPrefix("pause \\u{0}\u{1F600}xxx") && newest.hasSuffix("…"), "\(newest.prefix(40))")
        #expect(newest.count == OperatorAction.textLimit && !newest.unicodeScalars.contains("\u{0}"))
        #expect(kept.last?.at == Timestamp(millisecondsSince1970: 10), "the ten oldest went")
        #expect(kept.first?.peerUID == .max && kept.first?.peerPID == .max)
        _ = await queue.close()
        let read = try await StoreReader(path: path).operatorActions(limit: 3)
        #expect(read.map(\.id) == kept.prefix(3).map(\.id))
    }
}
