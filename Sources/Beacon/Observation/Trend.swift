/// The last ten minutes of the queue: its depth and its rates in and out, one point per
/// ten seconds, for the console's sparklines beside the current values.
///
/// A pure value: the observer adds what it measured at each tick, and a point is made of
/// every ``ticksPerPoint`` ticks (the deepest depth among them, the mean of their rates).
/// Memory is bounded: ``capacity`` points, however long the engine runs.
///
/// ```swift
/// var trend = Trend(ticksPerPoint: 10)
/// for tick in 0..<600 { trend.add(depth: tick, rateIn: 12, rateOut: 10) }
/// trend.points.count   // 60: ten minutes of ten-second points
/// ```
public struct Trend: Sendable, Hashable {
    /// One point: ``Trend/ticksPerPoint`` ticks folded together.
    public struct Point: Sendable, Hashable {
        /// The deepest the queue was among the point's ticks.
        public var depth: Int
        /// Events accepted per second, the mean over the point's ticks.
        public var rateIn: Double
        /// Events delivered per second, the mean over the point's ticks.
        public var rateOut: Double

        /// A depth below zero reads as zero, a rate that is not a finite number of at
        /// least zero as zero (they come from an engine's status too).
        public init(depth: Int, rateIn: Double, rateOut: Double) {
            self.depth = max(0, depth)
            self.rateIn = rateIn.isFinite ? max(0, rateIn) : 0
            self.rateOut = rateOut.isFinite ? max(0, rateOut) : 0
        }
    }

    /// Points kept at most: ten minutes of ten-second points.
    public static let capacity = 60
    /// The time one point covers, at the observer's default tick of a second.
    public static let pointInterval: Duration = .seconds(10)

    /// Ticks folded into one point.
    public let ticksPerPoint: Int
    /// The finished points, oldest first (at most ``capacity``).
    public private(set) var points: [Point] = []
    /// The ticks of the point being made.
    private struct Pending: Sendable, Hashable {
        var ticks = 0
        var depth = 0
        var rateIn = 0.0
        var rateOut = 0.0
    }
    private var pending = Pending()

    public init(ticksPerPoint: Int = 10) {
        self.ticksPerPoint = max(1, ticksPerPoint)
    }

    /// Points taken as they are (an engine's status read by a monitor), the newest
    /// ``capacity`` kept.
    public init(points: [Point], ticksPerPoint: Int = 10) {
        self.init(ticksPerPoint: ticksPerPoint)
        self.points = Array(points.suffix(Self.capacity))
    }

    /// Adds one tick's measures; every ``ticksPerPoint`` ticks make a point.
    public mutating func add(depth: Int, rateIn: Double, rateOut: Double) {
        let tick = Point(depth: depth, rateIn: rateIn, rateOut: rateOut)
        pending.ticks += 1
        pending.depth = max(pending.depth, tick.depth)
        pending.rateIn += tick.rateIn
        pending.rateOut += tick.rateOut
        guard pending.ticks >= ticksPerPoint else { return }
        let count = Double(pending.ticks)
        points.append(Point(depth: pending.depth, rateIn: pending.rateIn / count, rateOut: pending.rateOut / count))
        if points.count > Self.capacity { points.removeFirst(points.count - Self.capacity) }
        pending = Pending()
    }
}
