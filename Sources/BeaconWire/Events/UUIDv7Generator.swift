#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Time-ordered unique identifiers (RFC 9562 UUID version 7), used as `messageId`.
///
/// Identifiers from one generator strictly increase, even within one millisecond (the
/// 12-bit `rand_a` field holds a counter, as RFC 9562 §6.2 method 1 allows), so sorting
/// by id sorts by creation time.
public final class UUIDv7Generator: Sendable {
    private struct State {
        var lastMillis: UInt64 = 0
        var counter: UInt16 = 0
        /// SplitMix64 state, seeded from the system's random source: the random bits need
        /// to be unpredictable enough to avoid collisions, not secret, and a syscall per id
        /// would cost more than the rest of `track`.
        var random: UInt64 = {
            var system = SystemRandomNumberGenerator()
            return system.next()
        }()

        mutating func nextRandom() -> UInt64 {
            random &+= 0x9E37_79B9_7F4A_7C15
            var z = random
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    private let state = Mutex(State())
    private let now: @Sendable () -> UInt64

    /// A generator reading the system's real-time clock.
    public convenience init() {
        self.init(millisecondsSinceEpoch: { UUIDv7Generator.systemMillis() })
    }

    /// A generator with an injected clock, in milliseconds since 1970.
    public init(millisecondsSinceEpoch: @escaping @Sendable () -> UInt64) {
        self.now = millisecondsSinceEpoch
    }

    /// The shared generator used by `Event` when no id is given.
    public static let shared = UUIDv7Generator()

    /// Makes the next identifier, as a lowercase canonical string.
    public func next() -> String {
        let (millis, counter, tail) = state.withLock { state -> (UInt64, UInt16, UInt64) in
            var millis = now()
            if millis <= state.lastMillis {
                // Same millisecond, or the clock went back: keep ordering with the counter.
                millis = state.lastMillis
                if state.counter >= 0x0FFF {
                    millis += 1
                    state.counter = 0
                } else {
                    state.counter += 1
                }
            } else {
                state.counter = 0
            }
            state.lastMillis = millis
            return (millis, state.counter, state.nextRandom())
        }
        return UUIDv7Generator.format(millis: millis, counter: counter, random: tail)
    }

    /// The canonical text of a UUIDv7 with these fields.
    static func format(millis: UInt64, counter: UInt16, random: UInt64) -> String {
        // 128 bits: 48 time | 4 version | 12 counter | 2 variant | 62 random
        let high = (millis << 16) | 0x7000 | UInt64(counter & 0x0FFF)
        let low = (random & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var position = 0
            func put(_ value: UInt64, nibbles: Int) {
                for shift in stride(from: (nibbles - 1) * 4, through: 0, by: -4) {
                    // A lowercase hex digit, computed: a table would be an array made per id.
                    let nibble = UInt8(truncatingIfNeeded: (value >> UInt64(shift)) & 0xF)
                    buffer[position] = nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &+ (nibble &- 10)
                    position += 1
                }
            }
            func dash() {
                buffer[position] = UInt8(ascii: "-")
                position += 1
            }
            put(high >> 32, nibbles: 8); dash()
            put((high >> 16) & 0xFFFF, nibbles: 4); dash()
            put(high & 0xFFFF, nibbles: 4); dash()
            put(low >> 48, nibbles: 4); dash()
            put(low & 0xFFFF_FFFF_FFFF, nibbles: 12)
            return position
        }
    }

    /// Milliseconds since 1970 from the real-time clock.
    public static func systemMillis() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return UInt64(spec.tv_sec) * 1000 + UInt64(spec.tv_nsec) / 1_000_000
    }
}
