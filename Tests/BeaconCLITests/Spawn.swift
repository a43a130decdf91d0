import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Starts `executable` with `posix_spawn` and returns its pid: the one way the CLI tests
/// start a child. Foundation's `Process.run()` on Linux with Swift 6.3.1 now and then
/// crashes the whole test runner while it lists `/proc/self/fd` (swift-corelibs-foundation
/// PR #5472), and does not always notice short-lived children exit.
///
/// `streams` sets up descriptors 0, 1 and 2; every descriptor from 3 up is closed in the
/// child (a tmux server forked from a client would otherwise hold open pipes that other
/// tests read to their end), and the child starts with no signal blocked and every
/// handler at its default (the test runner's threads block and ignore some, and a child
/// would inherit that: a SIGTERM from a test would never arrive).
func spawn(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
    streams: (inout posix_spawn_file_actions_t) -> Void
) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    streams(&actions)
    guard let closeFrom = BeaconProcess.addCloseFrom else {
        throw TmuxError("posix_spawn_file_actions_addclosefrom_np is missing (glibc 2.34+)")
    }
    _ = closeFrom(&actions, 3)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    var allSignals = sigset_t()
    sigfillset(&allSignals)
    posix_spawnattr_setsigdefault(&attributes, &allSignals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    let variables = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
    let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup($0) } + [nil]
    defer { for pointer in envp { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
    guard spawned == 0 else { throw TmuxError("cannot start \(executable): error \(spawned)") }
    return pid
}
