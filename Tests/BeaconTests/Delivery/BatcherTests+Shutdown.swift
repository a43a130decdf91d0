import Beacon
import BeaconTesting
import Logging
import ServiceLifecycle
import Synchronization
import Testing

/// Graceful shutdown during a long drain: the drain under way stops after its batch in
/// flight, and the whole shutdown, that batch included, ends ``Batcher/finalFlushTimeout``
/// after it began.
@Suite("Batcher shutdown", .timeLimit(.minutes(1)))
struct BatcherShutdownTests {
    /// A sender whose every send takes `seconds` of `clock`'s time.
    final class SlowSender: EventSender {
        let clock: ManualClock
        let seconds: Int
        private let sends = Mutex(0)
        init(clock: ManualClock, seconds: Int = 1) {
            self.clock = clock
            self.seconds = seconds
        }
        var endpointDescription: String { "slow://test" }
        var count: Int { sends.withLock { $0 } }

        func send(_ batch: OutgoingBatch) async -> SendResult {
            sends.withLock { $0 += 1 }
            do {
                try await clock.sleep(for: .seconds(seconds))
            } catch {
                return SendResult(.retryable(reason: "send cancelled", retryAfter: nil))
            }
            return SendResult(.delivered, status: 200)
        }
    }

    @Test(arguments: [ShutdownPath.batcher, .serviceGroup])
    func aShutdownDuringALongDrainEndsWithinTheFinalFlushTimeout(_ path: ShutdownPath) async throws {
        let clock = ManualClock()
        let sender = SlowSender(clock: clock)
        let engine = try await Self.engine(sending: sender, queued: 1_000)

        // A group shuts its services down last first, each once the one after it has
        // returned: when the probe has seen its shutdown, the engine's comes next.
        let probe = ShutdownProbe()
        let services = ServiceGroup(configuration: ServiceGroupConfiguration(services: [engine, probe], logger: Logger(label: "test")))
        let elapsed = try await withThrowingTaskGroup(of: Duration?.self) { group in
            let start = clock.now
            group.addTask {
                switch path {
                case .batcher: try await engine.run()
                case .serviceGroup: try await services.run()
                }
                return start.duration(to: clock.now)
            }
            await engine.flush()
            await clock.waitForSleepers(1)  // the drain's first batch is in flight
            switch path {
            case .batcher: await engine.beginShutdown()
            case .serviceGroup:
                await services.triggerGracefulShutdown()
                await probe.shutDown.first { _ in true }
            }
            group.addTask {
                // Time goes on one second at a time while anything sleeps on it.
                while !Task.isCancelled {
                    await clock.waitForSleepers(1)
                    clock.advance(by: .seconds(1))
                }
                return nil
            }
            let first = try await group.next()
            group.cancelAll()
            return first ?? nil
        }
        let took = try #require(elapsed)
        // The batch in flight (1 s), then the final drain, cut 5 s after the start: 5 s, and
        // a second more when the clock moves on once more before the cut lands. A service
        // group hands the shutdown on from a task of its own while the clock goes on, so
        // a batch or two more may start first. The backlog of 100 one-second batches
        // would take 100 s.
        let bound: Duration = path == .batcher ? .seconds(7) : .seconds(9)
        #expect(took <= bound, "the shutdown took \(took) of the clock")
        #expect(sender.count <= 10)
        // What was not sent is still queued for the next start.
        let depth = engine.queue.depth
        #expect(depth.events > 0)
        #expect(depth.events + depth.totals.delivered == 1_000)
    }

    @Test("a batch in flight past the bound is cut at it and stays queued", arguments: [ShutdownPath.batcher, .serviceGroup])
    func aBatchInFlightIsCutAtTheBound(_ path: ShutdownPath) async throws {
        let clock = ManualClock()
        let sender = SlowSender(clock: clock, seconds: 60)
        let engine = try await Self.engine(sending: sender, queued: 100)
        let probe = ShutdownProbe()
        let services = ServiceGroup(configuration: ServiceGroupConfiguration(services: [engine, probe], logger: Logger(label: "test")))
        let (ended, end) = AsyncStream<Void>.makeStream()
        let run = Task {
            defer { end.finish() }
            switch path {
            case .batcher: try await engine.run()
            case .serviceGroup: try await services.run()
            }
        }
        defer { run.cancel() }
        await engine.flush()
        await clock.waitForSleepers(1)  // the first batch is in flight, for 60 s of the clock
        let start = clock.now
        switch path {
        case .batcher: await engine.beginShutdown()
        case .serviceGroup:
            await services.triggerGracefulShutdown()
            await probe.shutDown.first { _ in true }
        }
        // The batch's send and the shutdown's bound sleep on the clock (without the bound,
        // only the send does: the wait fails at its real-time limit).
        let armed = await Self.within(.seconds(10)) { await clock.waitForSleepers(2) }
        #expect(armed, "no sleeper for the shutdown's bound")
        clock.advance(by: .seconds(5))
        // The clock stays at the bound: the run must end there, without the batch's answer.
        let stopped = await Self.within(.seconds(10)) { for await _ in ended {} }
        #expect(stopped, "the run did not end at the bound")
        #expect(start.duration(to: clock.now) == .seconds(5))
        #expect(sender.count == 1, "only the batch in flight was sent")
        let depth = engine.queue.depth
        #expect(depth.events == 100, "the cut batch stays queued")
        #expect(depth.totals.delivered == 0)
    }

    /// An engine on `sender`'s clock, manual policy, 10 events a batch, with `queued`
    /// events committed.
    static func engine(sending sender: SlowSender, queued: Int) async throws -> BeaconEngine<ManualClock> {
        let engine = BeaconEngine(
            queue: InMemoryEventQueue(), destination: Destination(sender: sender),
            settings: EngineSettings(policy: .manual, batchSize: 10), clock: sender.clock, random: { 0 },
            observerSleep: { _ in try await Task.sleep(for: .seconds(3600)) })
        for index in 0..<queued { try engine.tracker.track("event \(index)", properties: ["index": .int(index)]) }
        await engine.queue.waitForPendingWrites()
        return engine
    }

    /// Whether `body` returns within `limit` of real time (it is cancelled otherwise): a
    /// bound for a negative check, never what a passing test waits on.
    static func within(_ limit: Duration, _ body: @escaping @Sendable () async -> Void) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await body()
                return !Task.isCancelled
            }
            group.addTask {
                do { try await Task.sleep(for: limit) } catch { return false }  // cancelled: the body returned first
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// A service that returns on graceful shutdown, and says so.
    struct ShutdownProbe: Service {
        let shutDown: AsyncStream<Void>
        private let continuation: AsyncStream<Void>.Continuation
        init() { (shutDown, continuation) = AsyncStream<Void>.makeStream() }
        func run() async throws {
            try? await gracefulShutdown()
            continuation.yield()
        }
    }

    enum ShutdownPath: CustomTestStringConvertible {
        /// ``BeaconEngine/beginShutdown()`` called by the host.
        case batcher
        /// A service group's graceful shutdown.
        case serviceGroup
        var testDescription: String { self == .batcher ? "beginShutdown()" : "graceful shutdown" }
    }
}
