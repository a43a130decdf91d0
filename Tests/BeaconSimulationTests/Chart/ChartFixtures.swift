import BeaconSimulation

/// Fixed timelines for the chart tests, built by plain arithmetic so renders are stable.
enum ChartFixtures {
    /// Steady at 200/s, 20 s offline with a burst of 2,000, recovery, then a drain.
    static func offlineBurst() -> SimulationTimeline {
        var samples: [SimulationTimeline.Sample] = []
        var depth = 0
        for tick in 0...140 {
            let time = Double(tick) / 2
            var tracked = 200.0, delivered = 200.0
            switch time {
            case ..<20: break
            case ..<40:
                delivered = 0
                depth += 100 + (tick == 60 ? 2_000 : 0)
            case ..<55:
                delivered = min(1_500, Double(depth * 2) + 200)
                depth = max(0, depth - 650)
            default:
                tracked = 0
                delivered = Double(min(depth, 50) * 2)
                depth = max(0, depth - 50)
            }
            samples.append(.init(time: time, depth: depth, trackedPerSecond: tracked, deliveredPerSecond: delivered))
        }
        return SimulationTimeline(
            samples: samples,
            steps: [
                .init(name: "steady 200/s", start: 0, end: 20, condition: .healthy),
                .init(name: "offline 20 s", start: 20, end: 40, condition: .offline),
                .init(name: "recovery", start: 40, end: 55, condition: .healthy),
                .init(name: "drain", start: 55, end: 70, condition: .drain),
            ],
            marks: [.init(time: 30, label: "burst 2000")]
        )
    }

    /// Three destinations after 10 s offline: `api` drains at once, `backup` in 5 s,
    /// `<warehouse & co>` (a name to escape) holds its backlog 15 s; the engine does not
    /// answer one sample (destinations unknown), and one sample names a destination that
    /// appears only there and says -5 (drawn as 0).
    static func destinations() -> SimulationTimeline {
        var samples: [SimulationTimeline.Sample] = []
        for tick in 0...60 {
            let time = Double(tick) / 2
            let backlog = time < 10 ? Int(time * 100) : 1_000  // checked: time ≤ 30
            let api = time < 10 ? backlog : 0
            let backup = time < 10 ? backlog : max(0, 1_000 - Int((time - 10) * 200))  // checked: small
            let warehouse = time < 10 ? backlog : max(0, 1_000 - Int((time - 10) * 66))  // checked: small
            var pending = ["api": api, "backup": backup, "<warehouse & co>": warehouse]
            if tick == 30 { pending["late"] = -5 }
            samples.append(
                .init(time: time, depth: max(api, backup, warehouse), trackedPerSecond: 100, deliveredPerSecond: 100,
                      destinations: tick == 40 ? nil : pending))
        }
        return SimulationTimeline(
            samples: samples,
            steps: [.init(name: "offline", start: 0, end: 10, condition: .offline), .init(name: "back", start: 10, end: 30, condition: .healthy)])
    }

    /// A collector failing 30 % of requests for three minutes, then healthy again.
    static func flakyCollector() -> SimulationTimeline {
        var samples: [SimulationTimeline.Sample] = []
        var depth = 0
        for second in 0...240 {
            // Failures come in 3-second runs, 3 runs in 10, for the first three minutes.
            let failing = second < 180 && ((second / 3) * 7) % 10 < 3
            let delivered = failing ? 0.0 : Double(min(depth + 150, 250))
            depth = max(0, depth + 150 - Int(delivered))
            samples.append(.init(time: Double(second), depth: depth, trackedPerSecond: 150, deliveredPerSecond: delivered))
        }
        return SimulationTimeline(
            samples: samples,
            steps: [
                .init(name: "collector failing 30 %", start: 0, end: 180, condition: .faulted),
                .init(name: "healthy", start: 180, end: 240, condition: .healthy),
            ],
            marks: []
        )
    }

    /// `kill -9` mid-run: the depth is unknown until the engine is back, then drains.
    static func killRestart() -> SimulationTimeline {
        var samples: [SimulationTimeline.Sample] = []
        for tick in 0...60 {
            let time = Double(tick)
            let sample: SimulationTimeline.Sample
            switch tick {
            case ..<20: sample = .init(time: time, depth: 40 + tick * 15, trackedPerSecond: 300, deliveredPerSecond: 285)
            case ..<26: sample = .init(time: time, depth: nil, trackedPerSecond: 0, deliveredPerSecond: 0)
            case ..<40: sample = .init(time: time, depth: 340 - (tick - 26) * 10, trackedPerSecond: 300, deliveredPerSecond: 310)
            default: sample = .init(time: time, depth: max(0, 200 - (tick - 40) * 20), trackedPerSecond: 0, deliveredPerSecond: 20)
            }
            samples.append(sample)
        }
        return SimulationTimeline(
            samples: samples,
            steps: [
                .init(name: "online 300/s", start: 0, end: 20, condition: .healthy),
                .init(name: "killed", start: 20, end: 26, condition: .paused),
                .init(name: "restarted", start: 26, end: 40, condition: .healthy),
                .init(name: "drain", start: 40, end: 60, condition: .drain),
            ],
            marks: [.init(time: 20, label: "kill -9"), .init(time: 26, label: "restart")]
        )
    }

    /// Nothing recorded at all.
    static func empty() -> SimulationTimeline {
        SimulationTimeline(samples: [], steps: [], marks: [])
    }

    /// Every bad value a scenario file or a broken run could produce, in one timeline.
    static func hostile() -> SimulationTimeline {
        let longName = String(repeating: "long-step-name-", count: 34)
        return SimulationTimeline(
            samples: [
                .init(time: .nan, depth: 5, trackedPerSecond: 1, deliveredPerSecond: 1),
                .init(time: -.infinity, depth: 5, trackedPerSecond: 1, deliveredPerSecond: 1),
                .init(time: -3, depth: -7, trackedPerSecond: -.infinity, deliveredPerSecond: .nan),
                .init(time: 2, depth: .max, trackedPerSecond: .infinity, deliveredPerSecond: .greatestFiniteMagnitude),
                .init(time: 1, depth: nil, trackedPerSecond: .nan, deliveredPerSecond: -5),
                .init(time: 1e300, depth: .min, trackedPerSecond: 0, deliveredPerSecond: 0),
                .init(time: .infinity, depth: 1, trackedPerSecond: 1, deliveredPerSecond: 1),
            ],
            steps: [
                .init(name: "<script>&\"'\u{0}\u{1}\u{7F}\u{FFFE}", start: .nan, end: 3, condition: .offline),
                .init(name: "<script>alert('x')</script>&\"'\u{0}", start: 0, end: 2, condition: .faulted),
                .init(name: longName, start: 2, end: .infinity, condition: .paused),
                .init(name: "🚀 burst 👩‍👩‍👧 \u{301}e\u{200D}\n\ttab", start: 5, end: 1, condition: .drain),
                .init(name: "", start: -.infinity, end: .infinity, condition: .healthy),
            ],
            marks: [
                .init(time: .nan, label: "nan"),
                .init(time: 1, label: "kill -9 <&>\u{0}"),
                .init(time: 1e300, label: longName),
                .init(time: 1, label: "🇺🇸\u{1F1EB}"),
            ]
        )
    }
}

extension ChartFixtures {
    /// One sample, no steps.
    static func oneSample() -> SimulationTimeline {
        SimulationTimeline(samples: [.init(time: 3, depth: 42, trackedPerSecond: 10, deliveredPerSecond: 8)], steps: [], marks: [])
    }

    /// The engine never answered.
    static func allUnknown() -> SimulationTimeline {
        SimulationTimeline(
            samples: (0..<20).map { .init(time: Double($0), depth: nil, trackedPerSecond: 0, deliveredPerSecond: 0) },
            steps: [.init(name: "down", start: 0, end: 19, condition: .offline)],
            marks: [.init(time: 0, label: "kill -9")]
        )
    }

    /// Everything at time 0.
    static func zeroDuration() -> SimulationTimeline {
        SimulationTimeline(
            samples: [.init(time: 0, depth: 1, trackedPerSecond: 1, deliveredPerSecond: 1),
                      .init(time: 0, depth: 2, trackedPerSecond: 2, deliveredPerSecond: 2)],
            steps: [.init(name: "instant", start: 0, end: 0, condition: .faulted)],
            marks: [.init(time: 0, label: "now")]
        )
    }
}
