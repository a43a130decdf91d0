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
    /// A connection that asked for status, got its answer, and stays open.
    static func openAnsweredConnection(to path: String) async throws -> NIOAsyncChannel<ByteBuffer, ByteBuffer> {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(unixDomainSocketPath: path) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        try await channel.outbound.write(ByteBuffer(bytes: ControlRequest(id: 1, command: .status).line))
        var received: [UInt8] = []
        var iterator = channel.inbound.makeAsyncIterator()
        while !received.contains(UInt8(ascii: "\n")), let chunk = try await iterator.next() {
            received += chunk.readableBytesView
        }
        #expect(String(decoding: received, as: UTF8.self).contains(#""ok":true"#))
        return channel
    }

    /// Closes a connection opened without `executeThenClose` (its writer must be finished).
    static func close(_ channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async throws {
        channel.outbound.finish()
        try await channel.channel.close()
    }

    @Test("past the connection limit, one more connection is refused with a reason; a freed slot serves again")
    func connectionLimit() async throws {
        let running = try await ControlChannelTests.Running.start()
        var open: [NIOAsyncChannel<ByteBuffer, ByteBuffer>] = []
        for _ in 0..<ControlServer.maxConnections {
            open.append(try await Self.openAnsweredConnection(to: running.control.path))
        }
        let refused = try await running.client.send(.status)
        #expect(ControlChannelTests.refusal(refused)?.contains("too many control connections") == true)

        try await Self.close(open.removeLast())
        var answered = false
        let deadline = ContinuousClock.now + .seconds(20)
        while !answered && ContinuousClock.now < deadline {  // the slot frees once the server sees the close
            answered = try await running.client.send(.status).isApplied
        }
        #expect(answered)
        for channel in open { try await Self.close(channel) }
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
