import ArgumentParser
import Beacon

/// `--durability`: what a commit survives (``SQLiteEventQueue/Durability``), for the
/// commands that write a store.
enum DurabilityOption: String, CaseIterable, ExpressibleByArgument {
    case processCrash = "process-crash"
    case powerLoss = "power-loss"

    var durability: SQLiteEventQueue.Durability {
        switch self {
        case .processCrash: .processCrash
        case .powerLoss: .powerLoss
        }
    }

    /// The help, the same for every command that takes it.
    static let help = ArgumentHelp(
        "What a commit survives: process-crash or power-loss.",
        discussion: """
            process-crash (the default, SQLite synchronous=NORMAL): a committed event survives a crash \
            or kill -9 of the process. power-loss (synchronous=FULL, one fsync per commit): it also \
            survives power loss, a kernel crash, and a filesystem that fails (goes read-only) \
            before the kernel wrote it back.
            """)
}
