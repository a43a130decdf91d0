import BeaconWire
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the collector does with a request: answer it, or drop the connection.
enum Reply: Sendable {
    case response(Response)
    /// Close the connection without a response (an injected reset).
    case reset
}

/// Serves the ingest routes: read and check the body, apply faults, store the events.
///
/// The order is fixed so that each refusal is cheap and specific: method and route, down,
/// latency, `Authorization` syntax and header key, `Content-Encoding`, body size (streamed,
/// inflated under a cap), UTF-8, JSON shape, write key, event count limit, injected fault,
/// each event's validity, then one transaction for the whole batch.
///
/// **Partial batches.** A batch with any invalid event stores nothing and is answered 400:
/// `{"error":"invalid_events","message":"...","rejected":[{"index":3,"messageId":"...",
/// "code":"missing_event_name","reason":"..."}]}`, one entry per invalid event (a repeated
/// `messageId` is listed at its second and later positions). A sender dead-letters exactly
/// the listed `messageId`s and resends the rest, which then succeed.
struct IngestHandler: Sendable {
    let core: CollectorCore

    /// `X-API-Key`: the write key when there is no `Authorization` header.
    static let apiKeyField = HTTPField.Name("X-API-Key")!

    func handle(
        _ request: Request, context: CollectorRequestContext, route: CollectorRoute, outcome: inout RequestOutcome
    ) async throws(CollectorError) -> Reply {
        let plan = core.faultPlan
        if plan.latencyMilliseconds > 0 {
            do {
                try await Task.sleep(for: .milliseconds(plan.latencyMilliseconds))
            } catch {
                // Cancelled while waiting (shutdown): answer at once rather than hold the connection.
            }
        }
        let header = try AuthorizationHeader.parse(
            authorization: request.headers[.authorization], apiKey: request.headers[Self.apiKeyField])
        try core.authenticator.precheck(header: header)
        let encoding = try ContentEncoding.parse(request.headers[.contentEncoding])
        let limit = core.limits.maxRequestBytes
        // NIO's parser has already refused a Content-Length that is not a number; compared
        // as UInt64, one past Int.max is too large rather than ignored.
        if let header = request.headers[.contentLength], let length = UInt64(header), length > UInt64(limit) {
            throw CollectorError.requestTooLarge(limit: limit)
        }
        let body = try await BodyReader.read(
            request.body, encoding: encoding, limit: limit, timeout: core.limits.bodyReadTimeout)
        return try await ingest(body, header: header, route: route, channel: context.channel, outcome: &outcome)
    }

    /// Everything after the body is read: UTF-8, JSON shape, write key, event count limit,
    /// injected fault, each event's validity, then one transaction for the whole batch.
    /// Tests and the fuzzer call it in-process (with no channel, an injected reset only
    /// answers `.reset`).
    func ingest(
        _ body: [UInt8], header: AuthorizationHeader, route: CollectorRoute, channel: (any Channel)?,
        outcome: inout RequestOutcome
    ) async throws(CollectorError) -> Reply {
        guard !body.isEmpty else { throw CollectorError.emptyBody() }
        guard body.withUnsafeBufferPointer(UTF8Validator.isValid) else { throw CollectorError.invalidUTF8() }

        let defaultType: EventType
        let parsed: ParsedBody
        switch route {
        case .single(let type):
            defaultType = type
            parsed = try BatchParser.parseSingle(body)
        default:
            defaultType = .track
            // Past the limit the parser only counts elements: the parse stays bounded.
            parsed = try BatchParser.parseBatch(body, keepingAtMost: core.limits.maxEventsPerBatch)
        }
        let count = parsed.elementCount
        try core.authenticator.authorize(header: header, bodyKey: parsed.writeKey)
        outcome.received = count
        if let maximum = core.limits.maxEventsPerBatch, count > maximum {
            throw CollectorError.tooManyEvents(count: count, limit: maximum)
        }

        let fault = core.drawFault(eventCount: count)
        outcome.fault = fault.name
        if fault != .serve { outcome.faulted = count }
        switch fault {
        case .serve: break
        case .batchTooLarge(let limit): throw CollectorError.injectedBatchTooLarge(count: count, limit: limit)
        case .fail: throw CollectorError.injectedFailure()
        case .throttle(let seconds): throw CollectorError.injectedThrottle(retryAfterSeconds: seconds)
        case .hang(let seconds):
            await hang(seconds: seconds)
            throw CollectorError.injectedHang(seconds: seconds)
        case .reset:
            if let channel { await reset(channel) }
            return .reset
        }

        let receivedAt = Timestamp.now().millisecondsSince1970
        let batch: AcceptedBatch
        switch BatchAdmission.decide(parsed, defaultType: defaultType, maxEventBytes: core.limits.maxEventBytes) {
        case .accept(let types, let times):
            batch = AcceptedBatch(parsed: parsed, types: types, times: times, receivedAtMilliseconds: receivedAt)
        case .refuse(let refusal):
            outcome.rejectedByCode = refusal.countsByCode
            outcome.rejected = refusal.total
            outcome.status = 400
            if case .single = route, let first = refusal.listed.first {
                outcome.errorCode = first.code
                return .response(ResponseBuilder.invalidEvents(refusal, total: count, code: first.code))
            }
            outcome.errorCode = "invalid_events"
            return .response(ResponseBuilder.invalidEvents(refusal, total: count, code: "invalid_events"))
        }

        let result: StoreInsertResult
        do {
            result = try await core.store.insert(batch)
        } catch let error as StoreUnavailableError where error.cause == .full {
            core.logger.log(
                .warning, "the queue is full: a batch was refused", kind: "queue full", throttle: core.logThrottle,
                metadata: ["reason": "\(error)", "events": "\(count)"])
            throw CollectorError.queueFull(error)
        } catch let error as StoreUnavailableError {
            core.logger.log(
                .warning, "the store cannot take a batch now", kind: "store unavailable", throttle: core.logThrottle,
                metadata: ["error": "\(error)", "events": "\(count)"])
            throw CollectorError.storeUnavailable(retryAfterSeconds: error.retryAfterSeconds)
        } catch let error as StoreRefusedEventsError where !error.rejections.isEmpty {
            // A store with checks of its own (beacon agent's queue): answered like the
            // collector's own refusals, nothing stored, the events listed.
            var refusal = BatchAdmission.Refusal(listed: [], total: 0, countsByCode: [:])
            for rejection in error.rejections {
                refusal.total += 1
                refusal.countsByCode[rejection.code, default: 0] += 1
                if refusal.listed.count < ErrorResponse.maximumListedRejections { refusal.listed.append(rejection) }
            }
            outcome.rejectedByCode = refusal.countsByCode
            outcome.rejected = refusal.total
            outcome.status = 400
            let code = route == .batch ? "invalid_events" : refusal.listed[0].code
            outcome.errorCode = code
            return .response(ResponseBuilder.invalidEvents(refusal, total: count, code: code))
        } catch {
            core.logger.log(
                .error, "storing a batch failed", kind: "store failed", throttle: core.logThrottle,
                metadata: ["error": "\(error)", "events": "\(count)"])
            throw CollectorError.storageFailed()
        }
        outcome.stored = result.stored
        outcome.duplicates = result.duplicates
        outcome.status = 200
        return .response(ResponseBuilder.accepted(received: count, stored: result.stored, duplicates: result.duplicates))
    }

    /// Holds the request for `seconds`, or until the collector shuts down.
    private func hang(seconds: Double) async {
        let deadline = ContinuousClock.now + .milliseconds(Int64(saturating: seconds * 1000))
        // Bounded: at most `seconds / 50 ms` rounds (seconds is capped by FaultPlan.maxHangSeconds).
        while ContinuousClock.now < deadline && !core.isStopping {
            do {
                try await Task.sleep(for: .milliseconds(min(50, max(1, (deadline - .now).inMilliseconds))))
            } catch {
                return  // cancelled: stop holding the request
            }
        }
    }

    /// Closes the connection without a response; with SO_LINGER 0 the peer sees a TCP reset.
    private func reset(_ channel: any Channel) async {
        if let provider = channel as? any SocketOptionProvider {
            do {
                try await provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
            } catch {
                core.logger.debug("could not set SO_LINGER before an injected reset", metadata: ["error": "\(error)"])
            }
        }
        do {
            try await channel.close()
        } catch {
            // Already closed by the peer: the reset has happened anyway.
            core.logger.trace("closing for an injected reset", metadata: ["error": "\(error)"])
        }
    }
}
