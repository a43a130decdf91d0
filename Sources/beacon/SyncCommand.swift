import ArgumentParser

struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sync", abstract: "Not built yet.")

    func run() async throws {
        throw ValidationError("beacon sync is not built yet")
    }
}
