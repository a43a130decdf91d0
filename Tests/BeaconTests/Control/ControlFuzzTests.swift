import Beacon
import BeaconWire
import Foundation
import Testing

/// Requests that are not requests: every one gets a response line (usually a refusal),
/// the engine keeps serving, and nothing traps.
@Suite("Control channel input", .timeLimit(.minutes(3)))
struct ControlFuzzTests {
    static let seeds: [String] = [
        #"{"v":1,"id":1,"command":"status"}"#,
        #"{"v":1,"id":2,"command":"policy","argument":"count 7 or 5s"}"#,
        #"{"v":1,"id":3,"command":"batch-size","argument":250}"#,
        #"{"v":1,"id":4,"command":"offline"}"#,
    ]

    /// One seeded mutation: flip, insert, delete or duplicate bytes. Newlines become
    /// spaces, so each mutation is one request line.
    static func mutate(_ bytes: [UInt8], using random: inout SeededGenerator) -> [UInt8] {
        var result = bytes
        let edits = Int.random(in: 1...8, using: &random)
        for _ in 0..<edits {
            let index = result.isEmpty ? 0 : Int.random(in: 0..<result.count, using: &random)
            switch Int.random(in: 0..<5, using: &random) {
            case 0 where !result.isEmpty: result[index] = UInt8.random(in: 0...255, using: &random)
            case 1: result.insert(UInt8.random(in: 0...255, using: &random), at: index)
            case 2 where !result.isEmpty: result.remove(at: index)
            case 3: result.insert(contentsOf: [0, 0x22, 0x7B, 0x5B, 0x5C].shuffled(using: &random).prefix(2), at: index)
            default: result.insert(contentsOf: Array(result[index...].prefix(16)), at: index)
            }
        }
        result = result.map { $0 == UInt8(ascii: "\n") ? UInt8(ascii: " ") : $0 }
        return result.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") } ? [UInt8(ascii: "x")] : result
    }

    @Test("three hundred seeded mutations each get a response, and the engine still answers")
    func mutationsAreAnswered() async throws {
        let running = try await ControlChannelTests.Running.start()
        var random = SeededGenerator(seed: 14)
        var refused = 0
        for round in 0..<300 {
            let seed = Array(Self.seeds[round % Self.seeds.count].utf8)
            let line = Self.mutate(seed, using: &random)
            let response = try await running.client.send(line: line)
            if !response.isApplied { refused += 1 }
        }
        #expect(refused > 150)  // most mutations break the request; the test would see a silent pass
        #expect(try ControlChannelTests.applied(await running.client.send(.online)) == ["offline": false])
        let status = try ControlChannelTests.applied(await running.client.send(.status))
        #expect(status["depth"] == 0)
        try await running.stop()
    }

    @Test("malformed, NUL, deep, wrong-version and huge lines are refused with a reason")
    func malformedLinesAreRefused() async throws {
        let running = try await ControlChannelTests.Running.start()
        let client = running.client
        let cases: [([UInt8], String)] = [
            (Array("not json".utf8), "not JSON"),
            ([0, 0, 0], "not JSON"),
            (Array(#"{"v":1,"id":5,"command":"sta\u0000tus"}"#.utf8), "unknown command"),
            (Array("[1,2]".utf8), "not an object"),
            (Array(String(repeating: "[", count: 5_000).utf8), "nests deeper"),
            (Array(#"{"v":2,"id":6,"command":"status"}"#.utf8), "version 2"),
            (Array(#"{"id":7,"command":"status"}"#.utf8), "\"v\" is missing"),
            (Array(#"{"v":1,"id":"x","command":"status"}"#.utf8), "\"id\""),
            (Array(#"{"v":1,"id":8,"command":"flush","argument":3}"#.utf8), "takes no argument"),
            (Array(#"{"v":1,"id":9,"command":"batch-size","argument":"many"}"#.utf8), "integer"),
            (Array(#"{"v":1,"id":10,"command":"batch-size","argument":1e400}"#.utf8), "not JSON"),
            (Array(#"{"v":1,"id":11,"command":"policy","argument":"count 99999999999999999999999"}"#.utf8), "policy"),
            ([UInt8](repeating: UInt8(ascii: "a"), count: ControlProtocol.maxLineBytes + 10), "longer than"),
            ([UInt8](repeating: UInt8(ascii: " "), count: 300_000) + Array("{}".utf8), "longer than"),
        ]
        for (line, reason) in cases {
            let response = try await client.send(line: line)
            let refusal = ControlChannelTests.refusal(response)
            #expect(refusal?.contains(reason) == true, "\(String(decoding: line.prefix(60), as: UTF8.self)): \(String(describing: refusal))")
        }
        #expect(try ControlChannelTests.applied(await client.send(.status))["policy"] == "manual")
        try await running.stop()
    }
}
