import BeaconWire
import Foundation

/// One benchmark figure, measured over several runs beside its baseline in the same
/// invocation: the medians, their ratio, and the target the ratio (or the figure) has.
struct BenchFigure {
    /// What a figure must reach.
    enum Target: Equatable {
        /// ratio ≥ value
        case ratioAtLeast(Double)
        /// ratio ≤ value
        case ratioAtMost(Double)
        /// figure ≥ value (in the figure's unit)
        case valueAtLeast(Double)
        /// figure ≤ value (in the figure's unit)
        case valueAtMost(Double)
        /// figure < value (in the figure's unit)
        case valueBelow(Double)

        var text: String {
            switch self {
            case .ratioAtLeast(let value): return "ratio >= \(value)"
            case .ratioAtMost(let value): return "ratio <= \(value)"
            case .valueAtLeast(let value): return ">= \(value)"
            case .valueAtMost(let value): return "<= \(value)"
            case .valueBelow(let value): return "< \(value)"
            }
        }
    }

    var benchmark: String
    /// What is measured, e.g. "events/s stored".
    var figure: String
    var unit: String
    /// One value per run.
    var values: [Double]
    /// What the figure is compared with (nil: it stands alone).
    var baseline: String?
    var baselineValues: [Double] = []
    var target: Target?
    /// More figures of the benchmark (stages, CPU, bytes), as they go into the JSON.
    var details: [String: JSONValue] = [:]

    var median: Double { BenchmarkStatistics.median(values) }
    var baselineMedian: Double? { baseline == nil ? nil : BenchmarkStatistics.median(baselineValues) }

    /// The figure's median over the baseline's median (nil without a baseline or with a
    /// baseline of 0).
    var ratio: Double? {
        guard let baselineMedian, baselineMedian != 0, baselineMedian.isFinite, median.isFinite else { return nil }
        return median / baselineMedian
    }

    /// Whether the target is met (nil without a target, or when the ratio it needs is missing).
    var met: Bool? {
        guard let target else { return nil }
        switch target {
        case .ratioAtLeast(let value): return ratio.map { $0 >= value }
        case .ratioAtMost(let value): return ratio.map { $0 <= value }
        case .valueAtLeast(let value): return median >= value
        case .valueAtMost(let value): return median <= value
        case .valueBelow(let value): return median < value
        }
    }

    /// The figure as one JSON object, with the machine's core count and load.
    func json(cores: Int, loadAverage: Double?) -> JSONValue {
        var object: [String: JSONValue] = [
            "benchmark": .string(benchmark), "figure": .string(figure), "unit": .string(unit),
            "median": Self.number(median), "values": .array(values.map(Self.number)),
            "runs": .int(values.count), "cores": .int(cores),
        ]
        if let baseline, let baselineMedian {
            object["baseline"] = .string(baseline)
            object["baselineMedian"] = Self.number(baselineMedian)
            object["baselineValues"] = .array(baselineValues.map(Self.number))
        }
        if let ratio { object["ratio"] = .double(round3(ratio)) }
        if let paired = pairedRatios {
            object["pairedRatios"] = .array(paired.map { .double(round3($0)) })
            object["pairedRatioMedian"] = .double(round3(BenchmarkStatistics.median(paired)))
        }
        if let target { object["target"] = .string(target.text) }
        if let met { object["met"] = .bool(met) }
        if let loadAverage { object["loadAverage1m"] = .double(round2(loadAverage)) }
        if !details.isEmpty { object["details"] = .object(details) }
        return .object(object)
    }

    /// Prints `figures` on stdout: with `json`, one object per line (with the machine's
    /// cores and its load average now); else a few lines each and a last line with the
    /// cores and the load.
    static func report(_ figures: [BenchFigure], json: Bool) {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let load = LoadAverage.oneMinute
        for figure in figures {
            if json {
                Output.json(figure.json(cores: cores, loadAverage: load).jsonString)
            } else {
                Output.raw(figure.text)  // several lines of its own making
            }
        }
        if !json { Output.line("  (\(cores) cores, load average \(load.map { String(round2($0)) } ?? "?") over the last minute)") }
    }

    /// The figure in a few lines for a terminal.
    var text: String {
        var lines = ["\(benchmark): \(figure)  median \(Self.format(median)) \(unit)  (\(values.count) runs)"]
        if let baseline, let baselineMedian {
            lines.append("  baseline: \(baseline)  median \(Self.format(baselineMedian)) \(unit)")
        }
        if let ratio { lines.append("  ratio \(String(format: "%.3f", ratio))") }
        if let paired = pairedRatios, paired.count > 1, let low = paired.min(), let high = paired.max() {
            lines.append(
                "  run by run: median \(String(format: "%.3f", BenchmarkStatistics.median(paired))) "
                    + "(\(String(format: "%.3f", low))–\(String(format: "%.3f", high))); the target is on the ratio of medians")
        }
        if let target, let met { lines.append("  target \(target.text): \(met ? "met" : "NOT met")") }
        return lines.joined(separator: "\n")
    }

    /// Each run's figure over the baseline taken beside it in the same run, when every
    /// run has both (a baseline of 0 or a value that is not finite: `nil`). The runs of a
    /// figure and of its baseline alternate, so a pair shares the machine's state of the
    /// moment; how far these spread says how much of a miss or a pass is the machine's.
    var pairedRatios: [Double]? {
        guard baseline != nil, !values.isEmpty, values.count == baselineValues.count else { return nil }
        var ratios: [Double] = []
        for (value, base) in zip(values, baselineValues) {
            guard base != 0, base.isFinite, value.isFinite else { return nil }
            ratios.append(value / base)
        }
        return ratios
    }

    /// A figure for the JSON: rounded, or `null` when it is not a finite number (an
    /// unknown is not written as 0).
    static func number(_ value: Double) -> JSONValue {
        value.isFinite ? .double(rounded(value)) : .null
    }

    /// Big figures to whole units, small ones to 4 significant digits.
    static func rounded(_ value: Double) -> Double {
        guard value.isFinite else { return value }
        if abs(value) >= 1000 { return value.rounded() }
        let scale = pow(10, 3 - floor(log10(max(abs(value), 1e-12))))
        return (value * scale).rounded() / scale
    }

    static func format(_ value: Double) -> String {
        abs(value) >= 1000 ? String(Int64(saturating: value.rounded())) : String(rounded(value))
    }
}

/// The machine's 1-minute load average, from `/proc/loadavg`.
enum LoadAverage {
    static var oneMinute: Double? {
        guard let handle = FileHandle(forReadingAtPath: "/proc/loadavg") else { return nil }
        defer { try? handle.close() }  // read-only: a failed close loses nothing
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        return text.split(separator: " ").first.flatMap { Double($0) }
    }
}
