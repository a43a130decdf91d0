import BeaconSimulation
import Foundation

/// What a run shows while it goes on, without a terminal: each sample as a JSON line in
/// `DIR/samples.jsonl` (written as it is taken: `tail -f` follows the run), the running step
/// in `DIR/step` (the caption `--watch`'s dashboard shows), and, when asked, a line a second
/// for a log. Losing any of these (a full disk) does not stop the run: the report is what counts.
final class LiveSamples {
    /// One line of `samples.jsonl`: the sample and the step it was taken in.
    struct Line: Encodable {
        var step: Int
        var stepName: String
        var sample: SimulationTimeline.Sample
    }

    private let handle: FileHandle?
    private let stepPath: String
    private let encoder = JSONEncoder()
    /// Told a line a second (headless `--watch`); `nil`: nothing told.
    private let tell: (@Sendable (String) -> Void)?
    private var lastTold: Double = -.infinity
    private var step = 0
    private var stepName = ""
    private var stepCount = 0

    init(directory: String, stepCount: Int, tell: (@Sendable (String) -> Void)?) {
        let path = "\(directory)/samples.jsonl"
        _ = FileManager.default.createFile(atPath: path, contents: nil)  // a missing file: handle is nil, nothing written
        handle = FileHandle(forWritingAtPath: path)
        stepPath = "\(directory)/step"
        self.stepCount = stepCount
        self.tell = tell
        encoder.outputFormatting = [.sortedKeys]
    }

    deinit { try? handle?.close() }  // what was written is on disk; a failed close loses nothing more

    /// A step begins: `index` is 0-based; `nil` is the drain after the steps.
    func begin(step index: Int?, name: String) {
        step = index.map { $0 + 1 } ?? stepCount + 1
        stepName = name
        let caption = index.map { "step \($0 + 1)/\(stepCount): \(name)" } ?? "drain after \(stepCount) steps"
        try? OutputFile.write(Array((caption + "\n").utf8), to: stepPath)  // live only: the report has the steps
    }

    /// Writes `sample` down, and tells it when a second has passed since the last told.
    func record(_ sample: SimulationTimeline.Sample) {
        if let handle, let data = try? encoder.encode(Line(step: step, stepName: stepName, sample: sample)) {
            try? handle.write(contentsOf: data + Data("\n".utf8))  // live only: report.json has every sample
        }
        guard let tell, sample.time - lastTold >= 1 else { return }
        lastTold = sample.time
        let depth = sample.depth.map(SimulationFormat.count) ?? "unknown"
        let place = step <= stepCount ? "step \(step)/\(stepCount) \(SimulationFormat.clip(stepName, to: 24))" : "drain"
        tell(
            "\(SimulationFormat.decimal(sample.time)) s \(place): depth \(depth), tracked \(SimulationFormat.amount(sample.trackedPerSecond.rounded()))/s, stored \(SimulationFormat.amount(sample.deliveredPerSecond.rounded()))/s")
    }
}
