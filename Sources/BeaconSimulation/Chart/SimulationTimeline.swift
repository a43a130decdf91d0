/// What a run recorded over time, for the chart and the report.
///
/// `beacon simulate` fills one of these while it plays a scenario: a sample per interval,
/// the scenario's steps with the condition each put the world in, and one-shot marks such
/// as `kill -9`. ``SimulationChart`` draws it as SVG or as terminal text.
///
/// ```swift
/// let timeline = SimulationTimeline(
///     samples: [.init(time: 0, depth: 0, trackedPerSecond: 200, deliveredPerSecond: 200)],
///     steps: [.init(name: "steady", start: 0, end: 10, condition: .healthy)],
///     marks: [.init(time: 5, label: "kill -9")]
/// )
/// let svg = SimulationChart.svg(timeline, title: "offline burst")
/// ```
public struct SimulationTimeline: Sendable, Hashable, Codable {
    /// The samples, normally in time order (the chart sorts them when they are not).
    public var samples: [Sample]
    /// The scenario's steps, in the order they ran.
    public var steps: [Step]
    /// One-shot events at a point in time ("kill -9", "burst 2000", "poison").
    public var marks: [Mark]

    /// A timeline of the given samples, steps and marks.
    public init(samples: [Sample] = [], steps: [Step] = [], marks: [Mark] = []) {
        self.samples = samples
        self.steps = steps
        self.marks = marks
    }
}

extension SimulationTimeline {
    /// What the run saw at one moment: queue depth and the two rates over the last interval.
    public struct Sample: Sendable, Hashable, Codable {
        /// Seconds since the run started.
        public var time: Double
        /// Events queued; `nil` when unknown (the engine was down or did not answer).
        public var depth: Int?
        /// Events accepted by the engine per second over the last interval.
        public var trackedPerSecond: Double
        /// Events newly stored at the collectors per second over the last interval.
        public var deliveredPerSecond: Double
        /// Events pending for each destination, by name; `nil` when unknown (the engine did
        /// not answer). Drawn as a line per destination when there are two or more.
        public var destinations: [String: Int]?

        /// A sample at `time` seconds since the run started.
        public init(
            time: Double, depth: Int?, trackedPerSecond: Double, deliveredPerSecond: Double, destinations: [String: Int]? = nil
        ) {
            self.time = time
            self.depth = depth
            self.trackedPerSecond = trackedPerSecond
            self.deliveredPerSecond = deliveredPerSecond
            self.destinations = destinations
        }
    }
}

extension SimulationTimeline {
    /// One step of the scenario: a named span of time under one condition.
    public struct Step: Sendable, Hashable, Codable {
        /// The step's name as the scenario file gave it (drawn escaped and truncated).
        public var name: String
        /// Seconds since the run started when the step began.
        public var start: Double
        /// Seconds since the run started when the step ended.
        public var end: Double
        /// What the world was like during the step.
        public var condition: Condition

        /// A step named `name` from `start` to `end` seconds under `condition`.
        public init(name: String, start: Double, end: Double, condition: Condition) {
            self.name = name
            self.start = start
            self.end = end
            self.condition = condition
        }
    }
}

extension SimulationTimeline {
    /// What the world was like during a step; the chart shades the step's band by it.
    public enum Condition: String, Sendable, Hashable, Codable, CaseIterable {
        /// Network up, collectors answering.
        case healthy
        /// The network is cut: events queue up.
        case offline
        /// The collectors fail some or all requests.
        case faulted
        /// Delivery is paused by the operator.
        case paused
        /// No new events: the queue drains.
        case drain
    }
}

extension SimulationTimeline {
    /// A one-shot event at a point in time: "kill -9", "burst 2000", "poison".
    public struct Mark: Sendable, Hashable, Codable {
        /// Seconds since the run started.
        public var time: Double
        /// A short label, drawn escaped and truncated.
        public var label: String

        /// A mark labeled `label` at `time` seconds since the run started.
        public init(time: Double, label: String) {
            self.time = time
            self.label = label
        }
    }
}
