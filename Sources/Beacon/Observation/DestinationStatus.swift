import BeaconWire

/// The state of one destination.
public struct DestinationStatus: Sendable, Hashable {
    /// Its name (`default` for a single destination).
    public var name: String
    /// Where it sends.
    public var endpoint: String
    /// Events not yet delivered to it.
    public var depth: Int
    /// What it is doing.
    public var state: State
    /// Consecutive failed attempts of the batch at its head.
    public var consecutiveFailures: Int
    /// The last error, if any.
    public var lastError: String?
    /// When the oldest event it has not delivered was committed (`nil`: none waits, or
    /// not known yet). Its age is the destination's latency: how long events wait.
    public var oldestPendingAt: Timestamp?
    /// When it last delivered a batch (`nil`: not since the engine started, nor in the
    /// store's batch history).
    public var lastSuccessAt: Timestamp?
    /// Events wait and nothing was delivered for ``stallThreshold``: see
    /// ``isStalled(at:threshold:)``. Set by the ``TrackingObserver`` on every snapshot.
    public var stalled: Bool
    /// Events delivered to it per second over the observer's rate window (`nil`: not
    /// known, as for a store another process serves). Beside the snapshot's `rateOut`,
    /// which counts events delivered to every destination (they leave the queue then).
    public var deliveryRate: Double? = nil
    /// The HTTP status of its last failed batch, while ``lastError`` stands (`nil`: none,
    /// or no HTTP answer: a timeout, a refused connection).
    public var lastStatus: Int? = nil
    /// When its first failed request after its last delivery ended: since when it is
    /// failing (`nil`: its last request went through, or none failed since the engine
    /// started). Kept by the ``TrackingObserver``.
    public var failingSince: Timestamp? = nil
    /// The share of its last ``failureWindow`` requests (at most) that failed, 0 to 1
    /// (`nil`: none answered since the engine started). Kept by the ``TrackingObserver``.
    public var failureRate: Double? = nil
    /// Events arriving for it per second over the observer's rate window: every event the
    /// engine accepts is for every destination (`nil`: not known). With
    /// ``deliveryRate``, what ``drain`` is estimated from.
    public var inflowRate: Double? = nil

    /// The requests ``failureRate`` is measured over, at most.
    public static let failureWindow = 20

    /// How long events may wait with no delivery before a destination counts as stalled:
    /// 60 s, twelve times the default flush interval and about the default backoff's cap.
    public static let stallThreshold: Duration = .seconds(60)

    /// What a destination is doing.
    public enum State: Sendable, Hashable {
        /// Its batcher has not reported yet (the engine is starting): whether it will send,
        /// wait or stay paused is not known.
        case starting
        case idle
        case sending
        /// Waiting before trying again, until this wall-clock time.
        case backingOff(until: Timestamp)
        /// Stopped until resumed: the destination refused the credentials (401/403).
        case paused(reason: String)
        /// Stopped until resumed: the operator paused it (``BeaconEngine/pause(destination:)``).
        case pausedByOperator
        case offline

        /// Whether the destination waits for a resume (either kind of pause).
        public var isPaused: Bool {
            switch self {
            case .paused, .pausedByOperator: return true
            case .starting, .idle, .sending, .backingOff, .offline: return false
            }
        }

        /// When the next try is due, while backing off.
        public var nextRetryAt: Timestamp? {
            if case .backingOff(let until) = self { return until }
            return nil
        }

        /// Who paused it: `operator`, `credentials`, or `nil` when it is not paused.
        public var pausedBy: String? {
            switch self {
            case .paused: return "credentials"
            case .pausedByOperator: return "operator"
            case .starting, .idle, .sending, .backingOff, .offline: return nil
            }
        }
    }

    public init(
        name: String, endpoint: String, depth: Int, state: State, consecutiveFailures: Int = 0, lastError: String? = nil,
        oldestPendingAt: Timestamp? = nil, lastSuccessAt: Timestamp? = nil, stalled: Bool = false
    ) {
        self.oldestPendingAt = oldestPendingAt
        self.lastSuccessAt = lastSuccessAt
        self.stalled = stalled
        self.name = name
        self.endpoint = endpoint
        self.depth = depth
        self.state = state
        self.consecutiveFailures = consecutiveFailures
        self.lastError = lastError
    }
}

extension DestinationStatus {
    /// Milliseconds the oldest pending event has waited at `now` (`nil` when none waits).
    public func oldestPendingAge(at now: Timestamp) -> Int64? {
        guard depth > 0, let oldest = oldestPendingAt else { return nil }
        return max(0, now.millisecondsSince1970 - oldest.millisecondsSince1970)
    }

    /// When the destination became stalled, if it is at `now`: the threshold after the
    /// later of its oldest pending event and its last delivery.
    public func stalledSince(at now: Timestamp, threshold: Duration = DestinationStatus.stallThreshold) -> Timestamp? {
        guard isStalled(at: now, threshold: threshold), let oldest = oldestPendingAt else { return nil }
        let from = max(oldest.millisecondsSince1970, lastSuccessAt?.millisecondsSince1970 ?? 0)
        return Timestamp(millisecondsSince1970: from.addingReportingOverflow(threshold.inMilliseconds).partialValue)
    }

    /// Whether what is pending is going down, and how soon it is gone: estimated from the
    /// net rate (``deliveryRate`` minus ``inflowRate``), not from the delivery rate alone,
    /// which promised a drain while events arrived as fast as they left.
    public enum Drain: Sendable, Hashable {
        /// Not known: nothing pending, the rates not measured yet, or not sending (a
        /// backoff, a pause or offline delivers nothing, and says so itself).
        case unknown
        /// Sending, but events arrive at least as fast as they are delivered.
        case notDraining
        /// Gone in about this many seconds at the net rate.
        case seconds(Double)
    }

    /// The drain estimate, as ``Drain`` says.
    public var drain: Drain {
        guard state == .sending, depth > 0, let out = deliveryRate, out.isFinite, out >= 0 else { return .unknown }
        let inflow = inflowRate.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil } ?? 0
        let net = out - inflow
        guard net > 0 else { return .notDraining }
        let seconds = Double(depth) / net
        return seconds.isFinite ? .seconds(seconds) : .notDraining
    }

    /// Seconds until what is pending is delivered at the net rate (``drain``); `nil` when
    /// not known or not draining.
    public var drainSeconds: Double? {
        if case .seconds(let seconds) = drain { return seconds }
        return nil
    }

    /// Whether the destination is stalled at `now`: events wait, the oldest has waited
    /// longer than `threshold`, and no batch was delivered within `threshold`. A
    /// destination the operator paused, or an engine offline, is not stalled: that wait
    /// is asked for. A pause for refused credentials and a backoff are.
    public func isStalled(at now: Timestamp, threshold: Duration = DestinationStatus.stallThreshold) -> Bool {
        switch state {
        case .pausedByOperator, .offline: return false
        case .starting, .idle, .sending, .backingOff, .paused: break
        }
        let limit = threshold.inMilliseconds
        guard let age = oldestPendingAge(at: now), age > limit else { return false }
        guard let success = lastSuccessAt else { return true }
        return now.millisecondsSince1970 - success.millisecondsSince1970 > limit
    }
}
