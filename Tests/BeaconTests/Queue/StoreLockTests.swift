@testable import Beacon
import BeaconTesting
import Foundation
import Logging
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// ``StoreLock`` in this process: on the store's own file, whatever path names it; its
/// holder file a label that ``StoreLock/check()`` writes again, without a descriptor more
/// however often it does.
@Suite struct StoreLockTests {
    static func openDescriptors() -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count
    }

    @Test func aSecondLockThroughASymlinkOrAHardLinkIsRefusedNamingThisProcess() throws {
        let folder = try TemporaryStore("lock")
        let store = folder.path
        let lock = try StoreLock.acquire(forStore: store, role: "test")
        #expect(symlink(store, folder.file("link.sqlite")) == 0)
        #expect(link(store, folder.file("hard.sqlite")) == 0)
        // The role from the holder file beside the file a symlink names; for a hard link's
        // other name, from the holder's command line.
        for (other, role) in [(folder.file("link.sqlite"), "test"), (folder.file("hard.sqlite"), StoreLock.commandName(of: getpid()))] {
            #expect(throws: StoreLockError.self) { _ = try StoreLock.acquire(forStore: other, role: "second") }
            do {
                _ = try StoreLock.acquire(forStore: other, role: "second")
            } catch {
                #expect(error.kind == .held(holder: StoreLockHolder(pid: getpid(), role: role)), "\(error)")
            }
        }
        #expect(lock.check().isSound)
        withExtendedLifetime((lock, folder)) {}
    }

    @Test func aReplacedHolderFileIsWrittenAgainWithoutADescriptorMoreEachTime() throws {
        let folder = try TemporaryStore("lock")
        let store = folder.path
        let lock = try StoreLock.acquire(forStore: store, role: "test")
        #expect(lock.check().isSound)
        let before = Self.openDescriptors()
        for round in 0..<50 {
            // Replaced by another file (a new inode), then removed: each check repairs it.
            _ = unlink(lock.path)
            if round % 2 == 0 { try "999999 someone\n".write(toFile: lock.path, atomically: false, encoding: .utf8) }
            let found = lock.check()
            #expect(found.problems.count == 1 && found.problems[0].contains("written again"), "round \(round): \(found.problems)")
            #expect(StoreLock.holder(ofStore: store) == StoreLockHolder(pid: getpid(), role: "test"), "round \(round)")
            #expect(lock.check().isSound, "round \(round): repaired")
        }
        // Other tests run beside this one and open files of their own: a leak would be one a
        // repair, 50 here, far past what they hold open at any moment.
        #expect(Self.openDescriptors() - before < 25, "no descriptor left behind by the repairs: \(before) then \(Self.openDescriptors())")
        // The store file itself replaced: said, and not repairable.
        _ = unlink(store)
        #expect(FileManager.default.createFile(atPath: store, contents: Data()))
        #expect(lock.check().problems.contains { $0.contains("was removed or replaced") })
        withExtendedLifetime((lock, folder)) {}
    }

    @Test func theControlChannelChecksTheLockBeforeEveryCommand() async throws {
        let folder = try TemporaryStore("lock")
        let lock = try StoreLock.acquire(forStore: folder.path, role: "test")
        let lines = LogLines()
        // Its timer never runs here: only the command can find the problem.
        let watch = StoreLockWatch(lock: lock, interval: .seconds(3600), logger: Logger(label: "lock") { _ in CapturingLogHandler(lines: lines) })
        let engine = BeaconEngine(
            queue: try SQLiteEventQueue(path: folder.path), destination: Destination(sender: RecordingSender()),
            settings: EngineSettings(policy: .manual))
        let control = try await engine.serveControl(watch: watch)
        _ = try await ControlClient(store: folder.path).send(.status)
        #expect(lines.all.isEmpty, "a sound lock says nothing: \(lines.all)")
        _ = unlink(lock.path)
        _ = try await ControlClient(store: folder.path).send(.status)
        #expect(lines.all.count == 1 && lines.all[0].hasPrefix("error the holder file \(lock.path) was removed"), "\(lines.all)")
        #expect(StoreLock.holder(ofStore: folder.path) == StoreLockHolder(pid: getpid(), role: "test"), "written again")
        // Said once while it lasts, and again when it comes back.
        _ = try await ControlClient(store: folder.path).send(.status)
        _ = unlink(lock.path)
        _ = try await ControlClient(store: folder.path).send(.status)
        #expect(lines.all.count == 2, "\(lines.all)")
        await control.close()
        withExtendedLifetime((lock, folder)) {}
    }
}
