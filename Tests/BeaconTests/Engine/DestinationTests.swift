import Beacon
import BeaconTesting
import Testing

@Suite("Destination")
struct DestinationTests {
    @Test(arguments: [0, -1, 17, 1_000, Int.max, Int.min])
    func maxConcurrentRequestsOutOfRangeIsRefused(value: Int) {
        #expect(throws: DestinationSettingError.self) { try Destination(sender: RecordingSender(), maxConcurrentRequests: value) }
        do {
            _ = try Destination(sender: RecordingSender(), maxConcurrentRequests: value)
        } catch {
            #expect(error.message == "maxConcurrentRequests must be 1...16, not \(value)")
        }
    }

    @Test(arguments: [1, 2, 4, 16])
    func maxConcurrentRequestsInRangeIsKept(value: Int) throws {
        let destination = try Destination(name: "fast", sender: RecordingSender(), maxConcurrentRequests: value)
        #expect(destination.maxConcurrentRequests == value)
        #expect(destination.name == "fast")
    }

    @Test func oneRequestAtATimeByDefault() {
        #expect(Destination(sender: RecordingSender()).maxConcurrentRequests == 1)
    }
}
