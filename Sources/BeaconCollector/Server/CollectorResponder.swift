import BeaconWire
import Foundation
import Hummingbird

/// Routes requests, turns refusals into JSON errors, and records every outcome in the
/// stats, the metrics and the request log.
struct CollectorResponder: HTTPResponder {
    typealias Context = CollectorRequestContext

    let core: CollectorCore
    let seed: UInt64
    /// The remote-config feed, when the collector serves one.
    var configFeed: ConfigFeed? = nil

    func respond(to request: Request, context: Context) async throws -> Response {
        let arrival = ContinuousClock.now
        let arrivalWallClock = Timestamp.now()
        let method = request.method.rawValue
        let path = request.uri.path
        var outcome = RequestOutcome(method: method, route: path, status: 0)
        let reply: Reply
        do {
            reply = try await route(request, context: context, path: path, outcome: &outcome)
        } catch {
            outcome.status = error.status
            outcome.errorCode = error.code
            reply = .response(ResponseBuilder.error(error))
            if error.status >= 500 && outcome.fault == nil {
                core.logger.log(
                    .warning, "request failed", kind: "request failed: \(error.code)", throttle: core.logThrottle,
                    metadata: ["route": "\(path)", "error": "\(error.code)"])
            } else {
                core.logger.debug("request refused", metadata: ["route": "\(path)", "error": "\(error.code)"])
            }
        }
        let response: Response
        switch reply {
        case .response(let answer):
            outcome.status = answer.status.code
            response = answer
        case .reset:
            outcome.status = 0
            // The channel is closed: Hummingbird's attempt to write this fails quietly.
            response = Response(status: .internalServerError)
        }
        core.stats.record(outcome, arrival: arrival, arrivalWallClock: arrivalWallClock)
        let duration = ContinuousClock.now - arrival
        core.metrics.record(
            outcome,
            durationSeconds: duration.inSeconds)
        return response
    }

    private func route(
        _ request: Request, context: Context, path: String, outcome: inout RequestOutcome
    ) async throws(CollectorError) -> Reply {
        guard let route = CollectorRoute(path: path) else { throw CollectorError.notFound(path: path) }
        let method = request.method.rawValue
        guard route.methods.contains(method) else {
            throw CollectorError.methodNotAllowed(method: method, path: path, allowed: route.methods)
        }
        if core.faultPlan.down && !route.servedWhenDown { throw CollectorError.down() }
        switch route {
        case .batch, .single:
            return try await IngestHandler(core: core).handle(request, context: context, route: route, outcome: &outcome)
        case .health:
            let health = await core.store.health()
            guard let kind = health.kind else {
                let body = #"{"status":"ok","uptimeSeconds":\#(core.stats.elapsed()),"version":"\#(BeaconVersion.current)"}"#
                return .response(ResponseBuilder.json(Array(body.utf8)))
            }
            // A shared database is reported: 503 while it cannot be reached, so a load
            // balancer sends traffic elsewhere until it is back.
            let document = StoreHealthDocument(
                status: health.problem == nil ? "ok" : "unavailable", store: kind, problem: health.problem,
                uptimeSeconds: core.stats.elapsed(), version: BeaconVersion.current)
            return .response(ResponseBuilder.json(try Self.encode(document), status: health.problem == nil ? 200 : 503))
        case .stats:
            var stats = core.stats.snapshot()
            let reading = await core.sharedTotals.read()
            stats.shared = reading.totals
            stats.sharedProblem = reading.problem
            return .response(ResponseBuilder.json(try Self.encode(stats)))
        case .metrics:
            core.metrics.recordShared(await core.sharedTotals.read())
            return .response(
                ResponseBuilder.text(core.metrics.prometheusText(), contentType: "text/plain; version=0.0.4"))
        case .config:
            guard let configFeed else { throw CollectorError.notFound(path: path) }
            return .response(ResponseBuilder.json(configFeed.answer(since: request.uri.queryParameters.get("since"))))
        case .adminFaults:
            guard core.servesFaultAdmin else { throw CollectorError.notFound(path: path) }
            guard context.peerIsLoopback else { throw CollectorError.adminForbidden() }
            if method == "PUT" {
                var request = request
                let body: ByteBuffer
                do {
                    body = try await request.collectBody(upTo: 64 * 1024)
                } catch {
                    throw CollectorError.invalidFaultPlan("the body could not be read or is over 64 KB.")
                }
                let plan = try Self.decodeFaultPlan(Data(body.readableBytesView))
                core.faultPlan = plan
                core.logger.info("fault plan changed", metadata: ["preset": "\(plan.presetName)"])
            }
            return .response(ResponseBuilder.json(try Self.encode(FaultPlanDocument(plan: core.faultPlan, seed: seed))))
        }
    }

    /// Reads a PUT body: a ``FaultPlan`` object, or `{"preset":"flaky"}`. A body with a
    /// plan's keys is that plan, whatever its `preset` says: the document `GET` answers
    /// (`"preset":"custom"` beside the plan) can be sent back as it is.
    static func decodeFaultPlan(_ data: Data) throws(CollectorError) -> FaultPlan {
        struct PresetRequest: Decodable {
            var preset: String?
            /// Whether any key but `preset` and `seed` is present.
            var hasPlanKeys: Bool
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: FaultPlan.AnyKey.self)
                preset = try container.decodeIfPresent(String.self, forKey: FaultPlan.AnyKey("preset"))
                hasPlanKeys = container.allKeys.contains { !FaultPlan.documentKeys.contains($0.stringValue) }
            }
        }
        let plan: FaultPlan
        do {
            let request = try JSONDecoder().decode(PresetRequest.self, from: data)
            if let name = request.preset, !request.hasPlanKeys {
                guard let preset = FaultPlan.preset(named: name) else {
                    let names = FaultPlan.presets.map(\.name).joined(separator: ", ")
                    throw CollectorError.invalidFaultPlan("unknown preset '\(name)'; use one of \(names).")
                }
                plan = preset
            } else {
                plan = try JSONDecoder().decode(FaultPlan.self, from: data)
            }
        } catch let error as CollectorError {
            throw error
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty && context.underlyingError == nil {
            // The plan's own refusals (a key that is not a plan's, a key given under both names).
            let reason = context.debugDescription
            throw CollectorError.invalidFaultPlan(reason.hasSuffix(".") ? reason : reason + ".")
        } catch {
            throw CollectorError.invalidFaultPlan(
                "send a JSON object such as {\"failRate\":0.3} or {\"preset\":\"flaky\"} (\(error)).")
        }
        do {
            try plan.validate()
        } catch {
            throw CollectorError.invalidFaultPlan(error.message)
        }
        return plan
    }

    private static func encode(_ value: some Encodable) throws(CollectorError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return Array(try encoder.encode(value))
        } catch {
            // Encoding plain structs of numbers and strings cannot fail; if it ever does, say so.
            throw CollectorError(status: 500, code: "encoding_failed", message: "The collector could not encode its answer (\(error)).")
        }
    }
}

/// The body of `GET /health` for a collector over a shared database.
struct StoreHealthDocument: Encodable {
    var status: String
    var store: String
    var problem: String?
    var uptimeSeconds: Double
    /// The collector's build (``BeaconVersion/current``).
    var version: String
}

/// The body of `GET/PUT /admin/faults`: the live plan, its preset name and the seed.
struct FaultPlanDocument: Encodable {
    var plan: FaultPlan
    var seed: UInt64

    func encode(to encoder: any Encoder) throws {
        try plan.encode(to: encoder)
        var container = encoder.container(keyedBy: ExtraKeys.self)
        try container.encode(plan.presetName, forKey: .preset)
        try container.encode(seed, forKey: .seed)
    }

    private enum ExtraKeys: String, CodingKey { case preset, seed }
}
