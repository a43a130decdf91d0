import BeaconTesting
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension ProcessHeavy {
    /// Issue 45, finding 1 and 2: the lock belongs to the store's file, not to a name. An
    /// agent serves a store; a second agent reaches the same file by another way (the
    /// holder file removed or replaced first, a symlink, a hard link, a bind mount of its
    /// folder) and exits 1 naming the first's PID, which still serves alone.
    @Suite("One engine per store, whatever path reaches it", .timeLimit(.minutes(4)))
    struct StoreIdentityLockTests {
        /// What a second agent does on `path`: its exit status and standard error, or a
        /// failure recorded if it was still running after 20 s (then killed).
        static func secondAgent(on path: String) async throws -> BeaconProcess.Result {
            try await BeaconProcess.run(
                ["agent", "--db", path, "--endpoint", AgentCommandTests.nowhere, "--listen", "127.0.0.1:0", "--log-level", "warning"],
                stdinBytes: nil, limit: .seconds(20))
        }

        /// An agent serving `directory/q.sqlite`, ready.
        static func firstAgent(_ directory: String) async throws -> RunningAgent {
            let agent = try RunningAgent(
                store: directory + "/q.sqlite", endpoints: [AgentCommandTests.nowhere], arguments: ["--log-level", "info"],
                directory: directory, tag: "first")
            _ = try await agent.address()
            return agent
        }

        static func expectRefused(_ second: BeaconProcess.Result, by first: RunningAgent, _ way: String) {
            #expect(!second.signalled, "\(way): the second agent ran until killed: two engines served one store")
            #expect(second.status == 1, "\(way): \(second.stderr)")
            #expect(second.stderr.contains("is served by process \(first.process.processIdentifier) (beacon agent)"), "\(way): \(second.stderr)")
        }

        @Test("a removed, then a replaced holder file: the second agent is refused, naming the first; the first writes it again")
        func removedAndReplacedHolderFile() async throws {
            let directory = try BeaconProcess.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
            let first = try await Self.firstAgent(directory)
            defer { first.stop() }
            let store = directory + "/q.sqlite"
            let holderFile = store + ".lock"

            #expect(unlink(holderFile) == 0)
            Self.expectRefused(try await Self.secondAgent(on: store), by: first, "removed holder file")

            // Replaced by a file naming a process that does not exist.
            _ = unlink(holderFile)
            try "999999 beacon flush\n".write(toFile: holderFile, atomically: false, encoding: .utf8)
            Self.expectRefused(try await Self.secondAgent(on: store), by: first, "replaced holder file")

            // The first notices, says so, and names itself in the file again.
            let pid = first.process.processIdentifier
            let rewritten = try await BeaconTesting.eventually(within: .seconds(15), every: .milliseconds(100)) {
                ((try? String(contentsOfFile: holderFile, encoding: .utf8)) ?? "").hasPrefix("\(pid) beacon agent")
            }
            #expect(rewritten, "the holder file names the first agent again")
            #expect(first.stderr.contains("was removed or changed; written again"), "\(first.stderr.suffix(800))")
            // It still serves: ctl reaches it.
            let status = try await BeaconProcess.run(["ctl", "--db", store, "status", "--json"])
            #expect(status.status == 0, "\(status.stderr)")
        }

        @Test("a symlink and a hard link to the store: refused, naming the first; ctl through the symlink reaches the first")
        func symlinkAndHardLink() async throws {
            let directory = try BeaconProcess.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
            let first = try await Self.firstAgent(directory)
            defer { first.stop() }
            let store = directory + "/q.sqlite"
            try FileManager.default.createDirectory(atPath: directory + "/other", withIntermediateDirectories: true)

            let symlink = directory + "/other/link.sqlite"
            #expect(Glibc.symlink(store, symlink) == 0)
            Self.expectRefused(try await Self.secondAgent(on: symlink), by: first, "symlink")
            let throughLink = try await BeaconProcess.run(["ctl", "--db", symlink, "status", "--json"])
            #expect(throughLink.status == 0, "ctl through the symlink: \(throughLink.stderr)")

            let hardLink = directory + "/other/hard.sqlite"
            #expect(link(store, hardLink) == 0)
            Self.expectRefused(try await Self.secondAgent(on: hardLink), by: first, "hard link")
        }

        /// Whether this process may bind-mount (root with the capability, as in CI's container).
        static let canBindMount: Bool = {
            guard geteuid() == 0, let directory = try? BeaconProcess.temporaryDirectory() else { return false }
            defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
            let target = directory + "/t"
            guard (try? FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)) != nil else { return false }
            guard mount(directory, target, nil, UInt(MS_BIND), nil) == 0 else { return false }
            umount(target)
            return true
        }()

        @Test("the store's folder bind-mounted at a second path: refused, naming the first",
              .enabled(if: Self.canBindMount, "bind mounts need root and CAP_SYS_ADMIN"))
        func bindMount() async throws {
            let directory = try BeaconProcess.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort: a temp dir
            let stores = directory + "/stores"
            let mirror = directory + "/mirror"
            try FileManager.default.createDirectory(atPath: stores, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: mirror, withIntermediateDirectories: true)
            let first = try await Self.firstAgent(stores)
            defer { first.stop() }
            #expect(mount(stores, mirror, nil, UInt(MS_BIND), nil) == 0, "\(String(cString: strerror(errno)))")
            defer { umount2(mirror, CInt(MNT_DETACH)) }
            Self.expectRefused(try await Self.secondAgent(on: mirror + "/q.sqlite"), by: first, "bind mount")
        }
    }
}
