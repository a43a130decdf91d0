import BeaconWire

extension EngineStatusReport {
    /// One destination in the engine's status.
    public struct Destination: Codable, Sendable, Hashable {
        public var name: String
        /// Where it sends.
        public var endpoint: String?
        /// Its state, in words (`backing off`, `paused: HTTP 401 …`).
        public var state: String
        /// Its state, as a value: ``Code``.
        public var code: Code
        public var paused: Bool
        /// `operator` or `credentials` while paused.
        public var pausedBy: String?
        /// Events it is not done with.
        public var pending: Int
        /// Seconds the oldest of them has waited.
        public var oldestPendingAge: Double?
        public var lastSuccessAt: String?
        public var stalled: Bool
        /// While backing off: when the next try is due.
        public var nextRetryAt: String?
        public var consecutiveFailures: Int
        public var lastError: String?
        /// The HTTP status of the last failed batch, while `lastError` stands.
        public var lastStatus: Int?
        /// Events delivered to it per second lately.
        public var deliveryRate: Double?
        /// Seconds until `pending` is delivered at the net rate (delivered minus arriving),
        /// while it is sending and draining.
        public var drainSeconds: Double?
        /// While sending with events pending and the rates known: whether they go down
        /// (`false`: events arrive at least as fast as they are delivered). `nil`: not known.
        public var draining: Bool?
        /// When its first failed request after its last delivery ended (`nil`: not failing).
        public var failingSince: String?
        /// The share of its last requests (at most 20) that failed, 0 to 1 (`nil`: none yet).
        public var failureRate: Double?
        /// When it became stalled, while it is.
        public var stalledSince: String?
        /// Its events since this engine started (absent from an engine before 0.6.0):
        /// what `/metrics` counts in `beacon_engine_delivered_events_total` and the others.
        public var sinceStart: Counts?

        /// One destination's events since the engine started, from the queue's counters.
        public struct Counts: Codable, Sendable, Hashable {
            /// Delivered to it.
            public var delivered: Int
            /// Refused by it for good (moved to dead letters).
            public var deadLettered: Int
            /// Dropped by the overflow policy before it had them.
            public var dropped: Int

            public init(delivered: Int, deadLettered: Int, dropped: Int) {
                self.delivered = delivered
                self.deadLettered = deadLettered
                self.dropped = dropped
            }

            /// `now` counted from `start` (a counter that went down, because the
            /// destination's progress was reset, counts from zero again; a negative one,
            /// read back from a damaged store, counts as zero).
            public init(_ now: DestinationDepth, from start: DestinationDepth) {
                func since(_ now: Int, _ start: Int) -> Int {
                    let (now, start) = (max(0, now), max(0, start))
                    return now < start ? now : now - start  // both at least zero: no overflow
                }
                delivered = since(now.delivered, start.delivered)
                deadLettered = since(now.deadLettered, start.deadLettered)
                dropped = since(now.dropped, start.dropped)
            }
        }

        /// A destination's state as a value (the `state` dimension of
        /// `beacon_engine_destination_state` uses the same names).
        public enum Code: String, Codable, Sendable, Hashable, CaseIterable {
            case starting
            case idle
            case sending
            case backingOff = "backing_off"
            case pausedByOperator = "paused_operator"
            case pausedForCredentials = "paused_credentials"
            case offline
        }

        public init(
            name: String, endpoint: String?, state: DestinationStatus.State, pending: Int, oldestPendingAge: Double?,
            lastSuccessAt: Timestamp?, stalled: Bool, consecutiveFailures: Int, lastError: String?, deliveryRate: Double?,
            stalledSince: Timestamp? = nil, lastStatus: Int? = nil, sinceStart: Counts? = nil,
            drain: DestinationStatus.Drain = .unknown, failingSince: Timestamp? = nil, failureRate: Double? = nil
        ) {
            self.name = name
            self.endpoint = endpoint
            self.state = Self.describe(state)
            self.code = Self.code(of: state)
            self.paused = state.isPaused
            self.pausedBy = state.pausedBy
            self.pending = pending
            self.oldestPendingAge = oldestPendingAge
            self.lastSuccessAt = lastSuccessAt?.iso8601
            self.stalled = stalled
            self.nextRetryAt = state.nextRetryAt?.iso8601
            self.consecutiveFailures = consecutiveFailures
            self.lastError = lastError
            self.deliveryRate = deliveryRate
            self.stalledSince = stalledSince?.iso8601
            self.sinceStart = sinceStart
            self.lastStatus = lastError == nil ? nil : lastStatus
            // The observer's estimate (``DestinationStatus/drain``), not one of its own.
            switch drain {
            case .unknown: break
            case .notDraining: self.draining = false
            case .seconds(let seconds):
                self.draining = true
                self.drainSeconds = seconds
            }
            self.failingSince = failingSince?.iso8601
            self.failureRate = failureRate.flatMap { $0.isFinite ? min(1, max(0, $0)) : nil }
        }

        /// Every field, an unknown one as `null` (scripts find each key in every answer).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(endpoint, forKey: .endpoint)
            try container.encode(state, forKey: .state)
            try container.encode(code, forKey: .code)
            try container.encode(paused, forKey: .paused)
            try container.encode(pausedBy, forKey: .pausedBy)
            try container.encode(pending, forKey: .pending)
            try container.encode(oldestPendingAge, forKey: .oldestPendingAge)
            try container.encode(lastSuccessAt, forKey: .lastSuccessAt)
            try container.encode(stalled, forKey: .stalled)
            try container.encode(nextRetryAt, forKey: .nextRetryAt)
            try container.encode(consecutiveFailures, forKey: .consecutiveFailures)
            try container.encode(lastError, forKey: .lastError)
            try container.encode(lastStatus, forKey: .lastStatus)
            try container.encode(deliveryRate, forKey: .deliveryRate)
            try container.encode(drainSeconds, forKey: .drainSeconds)
            try container.encode(draining, forKey: .draining)
            try container.encode(failingSince, forKey: .failingSince)
            try container.encode(failureRate, forKey: .failureRate)
            try container.encode(stalledSince, forKey: .stalledSince)
            try container.encode(sinceStart, forKey: .sinceStart)
        }

        /// The state as the engine has it, back from the report (a backoff without a
        /// readable time reads as sending: it is trying).
        public var destinationState: DestinationStatus.State {
            switch code {
            case .starting: return .starting
            case .idle: return .idle
            case .sending: return .sending
            case .backingOff:
                return nextRetryAt.flatMap(Timestamp.init(iso8601:)).map { .backingOff(until: $0) } ?? .sending
            case .pausedByOperator: return .pausedByOperator
            case .pausedForCredentials:
                return .paused(reason: state.hasPrefix("paused: ") ? String(state.dropFirst(8)) : state)
            case .offline: return .offline
            }
        }

        static func code(of state: DestinationStatus.State) -> Code {
            switch state {
            case .starting: return .starting
            case .idle: return .idle
            case .sending: return .sending
            case .backingOff: return .backingOff
            case .pausedByOperator: return .pausedByOperator
            case .paused: return .pausedForCredentials
            case .offline: return .offline
            }
        }

        /// A destination's state in one word or two.
        static func describe(_ state: DestinationStatus.State) -> String {
            switch state {
            case .starting: return "starting"
            case .idle: return "idle"
            case .sending: return "sending"
            case .backingOff: return "backing off"
            case .paused(let reason): return "paused: \(reason)"
            case .pausedByOperator: return "paused by operator"
            case .offline: return "offline"
            }
        }
    }
}
