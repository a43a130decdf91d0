import BeaconTesting
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension ProcessHeavy {
    /// Issue 22, findings 5, 6 and 7: the agent out of descriptors, its control channel full
    /// of silent connections, and store paths longer than a Unix socket's.
    @Suite("Exhaustion: descriptors, control connections, long paths", .serialized, .timeLimit(.minutes(4)))
    struct ExhaustionTests {
        /// An open, idle TCP connection to `port` on 127.0.0.1 (a descriptor), or -1.
        static func tcpConnection(to port: Int) -> CInt {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { return -1 }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(fd)
                return -1
            }
            return fd
        }

        /// An open, idle connection to the Unix socket at `path` (short enough to bind), or -1.
        static func unixConnection(to path: String) -> CInt {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { return -1 }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
                close(fd)
                return -1
            }
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard connected == 0 else {
                close(fd)
                return -1
            }
            return fd
        }

        /// The CPU time (user + system) the process `pid` used so far, in clock ticks.
        /// How many of `descriptors` have something to read (an answer, or the peer's close).
        static func readableCount(_ descriptors: [CInt]) -> Int {
            var polled = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&polled, nfds_t(polled.count), 0) >= 0 else { return 0 }
            return polled.filter { $0.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 }.count
        }

        /// The first whole number after `key` in `text` (`max_connections=1000`, `max_connections: 1000`).
        static func number(after key: String, in text: String) -> Int? {
            guard let range = text.range(of: key) else { return nil }
            let digits = text[range.upperBound...].drop { !$0.isNumber }.prefix { $0.isNumber }
            return Int(digits)
        }

        static func cpuTicks(_ pid: Int32) -> Int? {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            // After the command: state is field 3, utime 14 and stime 15 (1-based over the whole line).
            guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
            return user + system
        }

        @Test(
            "an agent with 1,024 descriptors and 1,100 idle connections stays idle and answers a new client",
            .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit"), "prlimit (util-linux) is not installed"))
        func outOfDescriptors() async throws {
            let directory = try BeaconProcess.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let store = directory + "/agent.sqlite"
            let agent = ChildProcess()
            let output = directory + "/agent.out", errors = directory + "/agent.err"
            _ = FileManager.default.createFile(atPath: output, contents: nil)
            _ = FileManager.default.createFile(atPath: errors, contents: nil)
            agent.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
            agent.arguments = [
                "--nofile=1024:1024", BeaconProcess.path, "agent", "--db", store, "--endpoint", AgentCommandTests.nowhere,
                "--listen", "127.0.0.1:0",
            ]
            agent.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
            agent.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
            try agent.run()
            defer {
                if agent.isRunning { kill(agent.processIdentifier, SIGKILL) }
                agent.waitUntilExit()
            }
            var port = 0
            let ready = ContinuousClock.now + .seconds(45)
            while port == 0, ContinuousClock.now < ready, agent.isRunning {
                let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
                if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }) {
                    port = Int(line.split(separator: ":").last ?? "") ?? 0
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            try #require(port > 0, "the agent did not start: \((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
            let log = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            #expect(log.contains("the connection cap is lowered"), "the agent says it fitted its cap: \(log.suffix(1000))")

            var connections: [CInt] = []
            defer { for fd in connections { close(fd) } }
            for _ in 0..<1_100 {
                let fd = Self.tcpConnection(to: port)
                if fd >= 0 { connections.append(fd) }
            }
            #expect(connections.count == 1_100)
            // The accepts and refusals have settled once every connection over the cap has
            // had its answer (a 503, then the close) and so reads as ready.
            let cap = try #require(Self.number(after: "max_connections", in: log), "the agent logs its cap: \(log.suffix(1000))")
            try #require(cap < connections.count, "the cap \(cap) leaves no connection to refuse")
            let settled = ContinuousClock.now + .seconds(30)
            var refused = Self.readableCount(connections)
            while refused < connections.count - cap, ContinuousClock.now < settled {
                try await Task.sleep(for: .milliseconds(20))
                refused = Self.readableCount(connections)
            }
            #expect(refused >= connections.count - cap, "\(refused) of the \(connections.count - cap) over the cap were answered")
            // Then two seconds of the agent's CPU, with every connection left idle: a window
            // of time is what "stays idle" is measured over.
            let pid = agent.processIdentifier
            let before = try #require(Self.cpuTicks(pid))
            try await Task.sleep(for: .seconds(2))
            let after = try #require(Self.cpuTicks(pid))
            let ticks = Int(sysconf(Int32(_SC_CLK_TCK)))
            #expect(after - before < ticks / 2, "the agent burned \(after - before) ticks (\(ticks)/s) in 2 s with idle connections")
            // A new client is answered at once: served, or told the server is full.
            let started = ContinuousClock.now
            let answer = try await HTTPAnswer.send("GET", "http://127.0.0.1:\(port)/health", timeout: 5)
            #expect([200, 503].contains(answer.status), "\(answer.status) \(answer.text)")
            if answer.status == 503 { #expect(answer.errorCode == "too_many_connections", "\(answer.text)") }
            #expect(ContinuousClock.now - started < .seconds(10), "before the fix: 24 s")
            #expect(agent.isRunning)
        }

        @Test("40 silent control connections do not lock an operator out")
        func silentControlConnections() async throws {
            let directory = try BeaconProcess.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let store = directory + "/agent.sqlite"
            let agent = try RunningAgent(store: store, endpoints: [AgentCommandTests.nowhere], directory: directory)
            defer { agent.stop() }
            _ = try await agent.address()
            var connections: [CInt] = []
            defer { for fd in connections { close(fd) } }
            for _ in 0..<40 {
                let fd = Self.unixConnection(to: store + ".control")
                if fd >= 0 { connections.append(fd) }
            }
            #expect(connections.count == 40)
            let started = ContinuousClock.now
            let status = try await BeaconProcess.run(["ctl", "--db", store, "status", "--json"])
            #expect(status.status == 0, "\(status.stderr)")
            #expect(ContinuousClock.now - started < .seconds(10))
            // The silent ones are closed by the idle timeout (10 s): a read ends with EOF.
            let fd = try #require(connections.last)
            var timeout = timeval(tv_sec: 30, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let readStarted = ContinuousClock.now
            // A blocking read, on a thread of its own (never on the cooperative pool).
            let read = try await offThePool { () -> Int in
                var byte: UInt8 = 0
                return recv(fd, &byte, 1, 0)
            }
            #expect(read <= 0, "the server closed the silent connection")
            #expect(ContinuousClock.now - readStarted < .seconds(25), "closed at the idle timeout (10 s), not never")
        }

        @Test("every command works on store paths of 60 to 504 bytes (SQLite's limit)", arguments: [60, 96, 99, 104, 120, 200, 250, 504])
        func longStorePaths(_ length: Int) async throws {
            let directory = try BeaconProcess.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let store = try LongPath.make(length: length, under: directory)
            #expect(store.utf8.count == length || directory.utf8.count + 10 > length, "\(store.utf8.count)")
            #expect(try await BeaconProcess.run(["track", "--db", store, "--count", "3"]).status == 0)
            let agent = try RunningAgent(store: store, endpoints: [AgentCommandTests.nowhere], directory: directory)
            defer { agent.stop() }
            _ = try await agent.address()
            let status = try await BeaconProcess.run(["ctl", "--db", store, "status", "--json"])
            #expect(status.status == 0, "\(length) bytes: \(status.stderr)")
            let listed = try await BeaconProcess.run(["dead", "--db", store, "list"])
            #expect(listed.status == 0, "\(length) bytes: \(listed.stderr)")
            #expect(try await agent.terminate(within: .seconds(15)) == 0, "\(agent.stderr.suffix(1000))")
            // No engine now: dead letters are read from the store itself.
            let direct = try await BeaconProcess.run(["dead", "--db", store, "list", "--json"])
            #expect(direct.status == 0, "\(length) bytes: \(direct.stderr)")
            let offline = try await BeaconProcess.run(["status", "--db", store, "--json"])
            #expect(offline.status == 0, "\(length) bytes: \(offline.stderr)")
        }

        @Test("a store path past SQLite's limit, or one the file system cannot reach, is refused by every command saying why")
        func storePathsThatCannotBe() async throws {
            let directory = try BeaconProcess.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let tooLong = try LongPath.make(length: 505, under: directory)
            try Data().write(to: URL(fileURLWithPath: "\(directory)/file"))
            let cases: [(path: String, reason: String)] = [
                (tooLong, "path is 505 bytes long; SQLite opens a store at a path of at most 504 bytes"),
                ("\(directory)/\(String(repeating: "n", count: 300))/q.sqlite", "longer than the file system allows"),
                ("\(directory)/file/q.sqlite", "not a directory"),
            ]
            let commands: [[String]] = [
                ["track"], ["status"], ["flush", "--endpoint", "log:"], ["dead", "list"], ["sync", "--from", "/dev/null"],
                ["collector", "--port", "0"], ["agent", "--endpoint", "log:", "--listen", "127.0.0.1:0"],
            ]
            for (path, reason) in cases {
                for command in commands {
                    let arguments = command + ["--db", path]
                    let result = try await BeaconProcess.run(arguments, stdinBytes: nil, limit: .seconds(20))
                    if path == tooLong || command.first != "status" && command.first != "dead" {
                        #expect(result.status == 2, "\(arguments): \(result.stderr)")
                        #expect(result.stderr.contains(reason), "\(arguments): \(result.stderr)")
                    } else {
                        // Reading commands say no store is there, which is as true.
                        #expect(result.status == 2, "\(arguments): \(result.stderr)")
                    }
                    #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
                    #expect(!result.stderr.contains("unable to open database file"), "\(arguments): \(result.stderr)")
                }
            }
            #expect(!FileManager.default.fileExists(atPath: tooLong))
        }
    }
}
