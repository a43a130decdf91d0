import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// `beacon agent ...` in the background: its stdout and stderr in files.
final class RunningAgent {
    let process = ChildProcess()
    let output: String
    let errors: String

    /// Starts `beacon agent --db store --endpoint ... ARGUMENTS` (`--listen 127.0.0.1:0` unless given).
    init(store: String, endpoints: [String], arguments: [String] = [], directory: String, tag: String = "agent") throws {
        output = directory + "/\(tag).out"
        errors = directory + "/\(tag).err"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        process.executableURL = URL(fileURLWithPath: BeaconProcess.path)
        var all = ["agent", "--db", store]
        for endpoint in endpoints { all += ["--endpoint", endpoint] }
        if !arguments.contains("--listen") { all += ["--listen", "127.0.0.1:0"] }
        process.arguments = all + arguments
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        try process.run()
    }

    /// The stdout so far.
    var stdout: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }
    /// The stderr so far.
    var stderr: String { (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "" }

    /// `http://127.0.0.1:PORT`, once the agent printed it; throws after `timeout`.
    func address(timeout: Duration = .seconds(45)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = stdout.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }) {
                return String(line.dropFirst("listening on ".count))
            }
            guard process.isRunning else {
                throw CollectorProcessError("the agent exited with \(process.terminationStatus): \(stderr.suffix(2000))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw CollectorProcessError("the agent printed no address within \(timeout): \(stderr.suffix(2000))")
    }

    /// The port of ``address(timeout:)``.
    func port() async throws -> Int {
        let address = try await address()
        guard let port = address.split(separator: ":").last.flatMap({ Int($0) }) else {
            throw CollectorProcessError("no port in \(address)")
        }
        return port
    }

    /// Kills it with SIGKILL and reaps it.
    func kill9() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Sends SIGTERM and waits at most `limit` for the exit; `nil` if it did not exit (then it is killed).
    func terminate(within limit: Duration) async throws -> Int32? {
        process.terminate()
        let deadline = ContinuousClock.now + limit
        while process.isRunning && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        guard !process.isRunning else {
            kill9()
            return nil
        }
        return process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
    }

    func stop() {
        kill9()
    }
}

/// One HTTP exchange from a test, over URLSession (libcurl underneath).
struct HTTPAnswer {
    var status: Int
    var body: Data
    var headers: [String: String]

    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any] { ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any]) ?? [:] }
    /// `error` of a refusal's body.
    var errorCode: String? { json["error"] as? String }
    /// The codes of the `rejected` list.
    var rejectedCodes: [String] { (json["rejected"] as? [[String: Any]])?.compactMap { $0["code"] as? String } ?? [] }

    static func send(
        _ method: String, _ url: String, body: Data? = nil, headers: [String: String] = [:], timeout: Double = 20
    ) async throws -> HTTPAnswer {
        guard let address = URL(string: url) else { throw CollectorProcessError("bad URL \(url)") }
        var request = URLRequest(url: address, timeoutInterval: timeout)
        request.httpMethod = method
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("", forHTTPHeaderField: "Expect")  // no 100-continue round trip for large bodies
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw CollectorProcessError("not an HTTP answer") }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        return HTTPAnswer(status: http.statusCode, body: data, headers: fields)
    }

    /// `Authorization: Basic base64(key:)`.
    static func basic(_ key: String) -> [String: String] {
        ["Authorization": "Basic " + Data((key + ":").utf8).base64EncodedString()]
    }
}

/// The value of the Prometheus sample `name{labels}` in `text`, if present.
func prometheusValue(_ text: String, _ name: String, destination: String = "default") -> Double? {
    for line in text.split(separator: "\n") where line.hasPrefix(name + "{") {
        guard line.contains("destination=\"\(destination)\""), let value = line.split(separator: " ").last else { continue }
        return Double(value)
    }
    return nil
}
