import Beacon
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Testing

/// The server's bounds and its life as a service.
@Suite("Control server limits", .timeLimit(.minutes(2)))
struct ControlServerLimitsTests {
    /// A connection that sent `command`, got its first answer, and stays open.
    static func openAnsweredConnection(
        to path: String, command: ControlCommand = .status
    ) async throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(unixDomainSocketPath: path) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        try await channel.outbound.write(ByteBuffer(bytes: ControlRequest(id: 1, command: command).line))
        var received: [UInt8] = []
        var iterator = channel.inbound.makeAsyncIterator()
        while !received.contains(UInt8(ascii: "\n")), let chunk = try await iterator.next() {
            received += chunk.readableBytesView
        }
        #expect(String(decoding: received, as: UTF8.self).contains(#""ok":true"#))
        return channel
    }

    /// Closes a connection opened without `executeThenClose` (its writer must be finished),
    /// whether or not the server closed it already.
    static func close(_ channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async {
        channel.outbound.finish()
        try? await channel.channel.close()  // the server may have closed it first: nothing left to close
    }

    @Test("past the connection limit, the connection idle the longest is closed to let one more in")
    func connectionLimitEvictsTheIdlest() async throws {
        let running = try await ControlChannelTests.Running.start()
        var open: [NIOAsyncChannel<ByteBuffer, ByteBuffer>] = []
        var answeredAt: [ContinuousClock.Instant] = []
        do {
            for _ in 0..<ControlServer.maxConnections {
                open.append(try await Self.openAnsweredConnection(to: running.control.path))
                answeredAt.append(.now)
            }
        } catch {
            // Every writer finished, whatever failed: an unfinished one stops the whole process.
            for channel in open { await Self.close(channel) }
            try await running.stop()
            throw error
        }
        #expect(try await running.client.send(.status).isApplied, "an operator gets in")
        // The first one opened was idle the longest: the server closed it.
        let closed = await withTaskGroup(of: Bool.self) { group in
            let first = open[0].channel
            group.addTask { (try? await first.closeFuture.get()) != nil || !first.isActive }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))  // a backstop: the test fails if reached
                return false
            }
            defer { group.cancelAll() }
            return await group.next() ?? false
        }
        #expect(closed, "the idlest connection was closed")
        // The others stay open, except those the idle closer may have closed meanwhile: on
        // a loaded machine opening them all can outlast ``ControlServer/idleTimeout`` (a
        // run of the whole suite once took 110 s here), and that closer is right to.
        let now = ContinuousClock.now
        let closedEarly = zip(open, answeredAt).dropFirst().filter { connection, answered in
            !connection.channel.isActive && now - answered < ControlServer.idleTimeout - .seconds(1)
        }
        #expect(closedEarly.isEmpty, "the others stay open (\(closedEarly.count) closed within the idle timeout)")
        for channel in open { await Self.close(channel) }
        try await running.stop()
    }

    @Test("when every connection is watching, one more is refused with a reason; a freed slot serves again")
    func connectionLimitRefusesWhenNoneIsIdle() async throws {
        let running = try await ControlChannelTests.Running.start()
        var open: [NIOAsyncChannel<ByteBuffer, ByteBuffer>] = []
        do {
            for _ in 0..<ControlServer.maxConnections {
                open.append(try await Self.openAnsweredConnection(to: running.control.path, command: .watch(intervalMilliseconds: 60_000)))
            }
            // A refusal may close the connection before its line arrives: that is one more
            // try, not a failure.
            var refusal: String?
            for _ in 0..<20 where refusal == nil {
                if let response = try? await running.client.send(.status) { refusal = ControlChannelTests.refusal(response) ?? "applied" }
            }
            #expect(refusal?.contains("too many control connections") == true, "\(refusal ?? "no answer in 20 tries")")

            await Self.close(open.removeLast())
            var answered = false
            let deadline = ContinuousClock.now + .seconds(20)
            while !answered && ContinuousClock.now < deadline {  // the slot frees once the server sees the close
                answered = (try? await running.client.send(.status).isApplied) ?? false
            }
            #expect(answered, "a watcher that hung up freed its slot")
        } catch {
            // Every writer finished, whatever failed: an unfinished one stops the whole process.
            for channel in open { await Self.close(channel) }
            try await running.stop()
            throw error
        }
        for channel in open { await Self.close(channel) }
        try await running.stop()
    }

    @Test("as a service, the server closes on graceful shutdown and removes its socket")
    func closesOnGracefulShutdown() async throws {
        let running = try await ControlChannelTests.Running.start()
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [running.control], logger: Logger(label: "test")))
        let task = Task { try await group.run() }
        #expect(try await running.client.send(.status).isApplied)
        await group.triggerGracefulShutdown()
        try await task.value
        #expect(!FileManager.default.fileExists(atPath: running.control.path))
        try await running.stop()
    }
}
