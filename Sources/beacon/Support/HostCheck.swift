#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Checks an address to bind before the server tries it, so that an address that cannot
/// exist is reported as invalid rather than as "in use".
enum HostCheck {
    /// Why `host` cannot be bound, or `nil` when it is an IP address or a name that resolves.
    static func problem(_ host: String) -> String? {
        if host.isEmpty { return "is empty; use an address such as 127.0.0.1 or ::1" }
        if host.contains(":") {
            return parses(host, family: AF_INET6) ? nil : "is not a valid IPv6 address; use e.g. ::1 or 127.0.0.1"
        }
        if host.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) {
            return parses(host, family: AF_INET) ? nil : "is not a valid IPv4 address (four numbers 0...255); use e.g. 127.0.0.1"
        }
        return resolves(host) ? nil : "is not an address this machine can resolve; use an IP address such as 127.0.0.1"
    }

    private static func parses(_ text: String, family: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(family, text, &buffer) == 1
    }

    private static func resolves(_ name: String) -> Bool {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(name, nil, &hints, &result)
        if let result { freeaddrinfo(result) }
        return status == 0
    }
}
