import Beacon
import Logging
import Synchronization

/// The demo's synthetic traffic: tracks catalogue events at an adjustable rate, and
/// bursts on demand.
///
/// At rate 0 the run loop waits for a rate change and costs nothing; otherwise it wakes
/// every 100 ms and tracks what the elapsed time owes (so 1000/s is 100 events a tick).
/// `track` only buffers (the queue group-commits), so a tick never waits on the disk.
final class DemoGenerator: Sendable {
    private let tracker: Tracker
    private let catalogue: DemoCatalogue
    private let logger: Logger
    private let rate: Mutex<Int>
    private let wakes: AsyncStream<Void>
    private let wakeContinuation: AsyncStream<Void>.Continuation
    private static let tick = Duration.milliseconds(100)

    init(tracker: Tracker, catalogue: DemoCatalogue, rate: Int, logger: Logger) {
        self.tracker = tracker
        self.catalogue = catalogue
        self.logger = logger
        self.rate = Mutex(rate)
        (wakes, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Events per second from now on (0: off).
    func setRate(_ perSecond: Int) {
        rate.withLock { $0 = max(0, perSecond) }
        wakeContinuation.yield()
    }

    /// Tracks `count` events now, on the calling task.
    func burst(_ count: Int) {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<count {
            let event = catalogue.draw(using: &random)
            do {
                try tracker.track(event.name, properties: event.properties, userId: event.userId)
            } catch {
                // Refused events are already reported to the observer (the dashboard's
                // last error); one log line is enough here.
                logger.warning("generated event refused", metadata: ["event": "\(event.name)", "error": "\(error)"])
            }
        }
    }

    /// Generates until cancelled.
    func run() async {
        let clock = ContinuousClock()
        var wakeIterator = wakes.makeAsyncIterator()
        var owed = 0.0
        var last = clock.now
        while !Task.isCancelled {
            let perSecond = rate.withLock { $0 }
            if perSecond == 0 {
                owed = 0
                guard await wakeIterator.next() != nil else { return }
                last = clock.now
                continue
            }
            do {
                try await Task.sleep(for: Self.tick)
            } catch {
                return  // cancelled: the demo is ending
            }
            let now = clock.now
            owed += Double(perSecond) * (now - last).inSeconds
            last = now
            let count = min(Int(owed), perSecond)  // after a stall, do not catch up more than a second's worth
            owed -= Double(Int(owed))
            burst(count)
        }
    }

    /// Stops ``run()`` at its next wait.
    func finish() {
        wakeContinuation.finish()
    }
}
