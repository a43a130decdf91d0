// libFuzzer harness for the collector's ingest pipeline, built outside SwiftPM by run.sh
// (the collector's parsing sources and BeaconWire compiled together into one module).
//
// Input: the first byte picks the route (even: /v1/batch, odd: a single event) and
// whether the rest is a gzip stream (bit 1); the rest is the request body. Each input goes
// through the gzip inflater (under the 500 KB cap), the UTF-8 check, the batch parser and
// the admission, as the collector's IngestHandler runs them. Invariants (a violation
// traps, which libFuzzer reports with the input):
//  - an accepted batch has distinct messageIds (by bytes), none empty, none with a control
//    character, one type per element, and at most the element limit;
//  - a refusal lists at most ErrorResponse.maximumListedRejections, counts at least as
//    many, and its JSON answer reads back as an ErrorResponse with the same code;
//  - every request-level refusal is a 4xx with a JSON body that reads back.
import Foundation

let maxRequestBytes = 500 * 1024
let maxEvents = 10_000

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIngest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let flags = data[0]
    let input = UnsafeBufferPointer(start: data + 1, count: size - 1)
    do throws(CollectorError) {
        let body = try inflate(input, gzip: flags & 2 != 0)
        guard !body.isEmpty else { throw CollectorError.emptyBody() }
        guard body.withUnsafeBufferPointer(UTF8Validator.isValid) else { throw CollectorError.invalidUTF8() }
        let single = flags & 1 != 0
        let parsed = single ? try BatchParser.parseSingle(body) : try BatchParser.parseBatch(body, keepingAtMost: maxEvents)
        if parsed.elementCount > maxEvents { throw CollectorError.tooManyEvents(count: parsed.elementCount, limit: maxEvents) }
        precondition(parsed.items.count == parsed.elementCount, "items kept differ from elements counted under the limit")
        switch BatchAdmission.decide(parsed, defaultType: .track, maxEventBytes: 32 * 1024) {
        case .accept(let types):
            precondition(types.count == parsed.items.count, "one type per accepted event")
            parsed.withText { text in
                var seen = Set<[UInt8]>()
                for item in parsed.items {
                    guard let id = item.fields.messageId else { preconditionFailure("accepted without a messageId") }
                    let bytes = Array(text.bytes(id))
                    precondition(!bytes.isEmpty, "accepted an empty messageId")
                    precondition(!bytes.contains(where: { $0 < 0x20 }), "accepted a control character in a messageId")
                    precondition(seen.insert(bytes).inserted, "accepted a repeated messageId")
                }
            }
        case .refuse(let refusal):
            precondition(refusal.total >= refusal.listed.count && refusal.total > 0, "refusal counts")
            precondition(refusal.listed.count <= ErrorResponse.maximumListedRejections, "refusal lists too many")
            precondition(refusal.countsByCode.values.reduce(0, +) == refusal.total, "counts by code")
            let answer = ErrorResponse(error: "invalid_events", message: "m", rejected: refusal.listed, rejectedCount: refusal.total)
            check(answer.jsonBytes, code: "invalid_events")
        }
    } catch {
        precondition((400..<500).contains(error.status), "a client's body got \(error.status) \(error.code)")
        check(error.jsonBody, code: error.code)
    }
    return 0
}

func inflate(_ input: UnsafeBufferPointer<UInt8>, gzip: Bool) throws(CollectorError) -> [UInt8] {
    guard gzip else {
        if input.count > maxRequestBytes { throw CollectorError.requestTooLarge(limit: maxRequestBytes) }
        return Array(input)
    }
    let inflater: GzipInflater
    do throws(GzipInflater.Failure) {
        inflater = try GzipInflater(limit: maxRequestBytes)
        // Fed in two chunks, as a body arrives.
        let half = input.count / 2
        try inflater.feed(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: input[..<half])))
        try inflater.feed(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: input[half...])))
    } catch {
        switch error {
        case .tooLarge: throw CollectorError.decompressedTooLarge(limit: maxRequestBytes)
        case .corrupt(let reason): throw CollectorError.invalidGzip(reason)
        }
    }
    guard inflater.finished else { throw CollectorError.invalidGzip("the stream ends before its end marker") }
    return inflater.output
}

/// The answer reads back as an ErrorResponse with `code`.
func check(_ json: [UInt8], code: String) {
    guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(json)), let response = ErrorResponse(json: value)
    else { preconditionFailure("an answer is not an ErrorResponse: \(String(decoding: json.prefix(200), as: UTF8.self))") }
    precondition(response.error == code, "the answer's code reads back differently")
}
