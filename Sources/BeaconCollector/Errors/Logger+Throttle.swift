import BeaconWire
import Logging

extension Logger {
    /// Logs `message` at `level` unless `throttle` holds back its `kind`; a line that goes
    /// out after some were held back says how many (`suppressed`).
    func log(
        _ level: Logger.Level, _ message: @autoclosure () -> Logger.Message, kind: String, throttle: LogThrottle,
        metadata: @autoclosure () -> Logger.Metadata = [:]
    ) {
        guard logLevel <= level else { return }
        let decision = throttle.admit(kind)
        guard decision.logs else { return }
        var fields = metadata()
        if decision.suppressed > 0 { fields["suppressed"] = "\(decision.suppressed)" }
        log(level: level, message(), metadata: fields)
    }
}
