import Beacon

extension Renderer {
    /// The remote-configuration line: the version in force, a marker when the last poll
    /// failed or the feed warned, when it last synced (UTC, and how long ago), how often
    /// it polls, and what the blocklist and sampling dropped. In that order of priority:
    /// a group that does not fit whole is left out.
    ///
    /// ` config 5f2c0a9e3b7d4411  synced 12:04:31 UTC (4s ago)  every 5s  blocked 12`
    mutating func drawRemoteConfigLine(y: Int) {
        guard let config = snapshot.remoteConfig else { return }
        let version = config.version.map { Span($0.elidedRight(toWidth: 16)) } ?? Span("none yet", .dim)
        var groups: [[Span]] = [[Span(" config ", .dim), version]]
        if config.lastError != nil {
            let failures = config.consecutiveFailures
            groups.append([Span(failures > 1 ? "  last \(Format.count(failures)) polls failed" : "  last poll failed", .error)])
        } else if config.feedWarning != nil {
            groups.append([Span("  feed warning", .warn)])
        }
        if let lastSync = config.lastSync {
            let age = snapshot.time.millisecondsSince1970 - lastSync.millisecondsSince1970
            let time = Format.timeOfDay(millisecondsSince1970: lastSync.millisecondsSince1970)
            groups.append([Span("  synced ", .dim), Span(time + " UTC"), Span(" (\(Format.age(milliseconds: age)) ago)", .dim)])
        } else {
            groups.append([Span("  not synced yet", .dim)])
        }
        if let interval = config.interval {
            groups.append([Span("  every ", .dim), Span(Format.interval(interval))])
        }
        if config.filtered.blocked > 0 {
            groups.append([Span("  blocked ", .dim), Span(Format.count(config.filtered.blocked))])
        }
        if config.filtered.sampledOut > 0 {
            groups.append([Span("  sampled out ", .dim), Span(Format.count(config.filtered.sampledOut))])
        }
        writeFitting(groups, y: y)
    }
}
