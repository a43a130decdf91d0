/// A timeline cleaned for drawing: samples sorted by time, every number finite and inside
/// the chart's range. Bad values are skipped or clamped here so the renderers never see them.
struct ChartData {
    /// A sample with its values checked: `nil` where a value is unknown or was not a number.
    struct Point {
        var time: Double
        var depth: Int?
        var tracked: Double?
        var delivered: Double?
        /// Events pending per destination, by index into ``ChartData/destinations``.
        var destinations: [Int: Int] = [:]
    }

    /// The largest value drawn; larger ones (Int.max depths, absurd rates) are clamped to it.
    static let valueCap = 1e19
    /// The latest time drawn, in seconds (about 31 years).
    static let timeCap = 1e9

    var points: [Point]
    var steps: [SimulationTimeline.Step]
    var marks: [SimulationTimeline.Mark]
    /// Seconds from 0 to the end of the chart: the latest sample, step end or mark, at least 1.
    var duration: Double
    /// The largest known depth, or `nil` when no sample knew it.
    var maxDepth: Int?
    /// The largest tracked or delivered rate (0 when there is none).
    var maxRate: Double
    /// The destinations drawn as lines of their own, by name (at most
    /// ``maxDestinationLines``); empty when the samples know fewer than two.
    var destinations: [String]

    /// The most destination lines a chart draws.
    static let maxDestinationLines = 8

    init(_ timeline: SimulationTimeline) {
        var indexed: [(index: Int, time: Double)] = []
        for (index, sample) in timeline.samples.enumerated() {
            if let time = Self.time(sample.time) { indexed.append((index, time)) }
        }
        indexed.sort { $0.time != $1.time ? $0.time < $1.time : $0.index < $1.index }
        let names = Set(timeline.samples.flatMap { $0.destinations.map { Array($0.keys) } ?? [] }).sorted()
        let destinations = names.count >= 2 ? Array(names.prefix(Self.maxDestinationLines)) : []
        self.destinations = destinations
        let slot = Dictionary(uniqueKeysWithValues: destinations.enumerated().map { ($1, $0) })
        points = indexed.map { index, time in
            let sample = timeline.samples[index]
            var point = Point(time: time, depth: sample.depth.map { Swift.max(0, $0) },
                              tracked: Self.rate(sample.trackedPerSecond), delivered: Self.rate(sample.deliveredPerSecond))
            for (name, pending) in sample.destinations ?? [:] {
                if let index = slot[name] { point.destinations[index] = Swift.max(0, pending) }
            }
            return point
        }
        marks = timeline.marks.compactMap { mark in
            Self.time(mark.time).map { SimulationTimeline.Mark(time: $0, label: mark.label) }
        }
        // A step may run "until the end" (end = +inf): it ends where the rest of the data does.
        let bounded = timeline.steps.compactMap { step in Self.time(step.start).map { (step, $0, Self.time(step.end)) } }
        let latest = ([points.last?.time ?? 0] + marks.map(\.time) + bounded.map { Swift.max($0.1, $0.2 ?? 0) }).max() ?? 0
        let duration = Swift.max(1, latest)
        self.duration = duration
        steps = bounded.compactMap { step, start, end in
            guard let end = end ?? (step.end == .infinity ? Swift.max(duration, start) : nil) else { return nil }
            var clean = step
            clean.start = Swift.min(start, end)
            clean.end = Swift.max(start, end)
            return clean
        }
        // A destination's line is on the depth axis: the axis reaches the deepest of them too.
        maxDepth = (points.compactMap(\.depth) + points.flatMap(\.destinations.values)).max()
        maxRate = points.flatMap { [$0.tracked ?? 0, $0.delivered ?? 0] }.max() ?? 0
    }

    /// A time clamped to 0…``timeCap``; `nil` when it is not finite.
    private static func time(_ value: Double) -> Double? {
        value.isFinite ? Swift.min(Swift.max(value, 0), timeCap) : nil
    }

    /// A rate clamped to 0…``valueCap``; `nil` (a gap in its line) when it is not finite.
    private static func rate(_ value: Double) -> Double? {
        value.isFinite ? Swift.min(Swift.max(value, 0), valueCap) : nil
    }

    /// Where `time` falls among `columns` equal columns spanning 0…``duration``.
    func column(of time: Double, columns: Int) -> Int {
        ChartFormat.clampedInt((time / duration * Double(columns)).rounded(.down), in: 0...Swift.max(0, columns - 1))
    }

    /// The condition of the last step covering `time`, or `nil` outside every step.
    func condition(at time: Double) -> SimulationTimeline.Condition? {
        steps.last { $0.start <= time && time < $0.end }?.condition
    }

    /// A depth as a chart value, clamped to ``valueCap``.
    static func value(_ depth: Int) -> Double {
        Swift.min(Double(depth), valueCap)
    }
}

extension ChartData {
    /// One drawn point of a series: a time in seconds and a finite value.
    struct RunPoint: Equatable {
        var time: Double
        var value: Double
    }

    /// A series as drawable runs: a run ends where `value` gives `nil` (the line breaks
    /// there instead of dropping to zero), and each run keeps at most two points per column
    /// of `columns` spanning ``duration``, the lowest and the highest in time order, so
    /// spikes survive any number of samples.
    func runs(columns: Int, value: (Point) -> Double?) -> [[RunPoint]] {
        var runs: [[RunPoint]] = []
        var run: [RunPoint] = []
        var bucket: Bucket?

        func flushBucket() {
            if let bucket { run += bucket.points }
            bucket = nil
        }
        func endRun() {
            flushBucket()
            if !run.isEmpty { runs.append(run) }
            run = []
        }

        for (index, source) in points.enumerated() {
            guard let value = value(source) else {
                endRun()
                continue
            }
            let point = RunPoint(time: source.time, value: value)
            let column = column(of: source.time, columns: columns)
            if bucket?.column == column {
                bucket?.add(point, at: index)
            } else {
                flushBucket()
                bucket = Bucket(column: column, point: point, index: index)
            }
        }
        endRun()
        return runs
    }

    /// The lowest and highest point seen in one column, with where they came in.
    private struct Bucket {
        var column: Int
        var low: (point: RunPoint, index: Int)
        var high: (point: RunPoint, index: Int)

        init(column: Int, point: RunPoint, index: Int) {
            self.column = column
            low = (point, index)
            high = (point, index)
        }

        mutating func add(_ point: RunPoint, at index: Int) {
            if point.value < low.point.value { low = (point, index) }
            if point.value > high.point.value { high = (point, index) }
        }

        /// One point when low and high are the same sample, else both in time order.
        var points: [RunPoint] {
            if low.index == high.index { return [low.point] }
            return low.index < high.index ? [low.point, high.point] : [high.point, low.point]
        }
    }
}
