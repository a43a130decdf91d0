import ArgumentParser

struct MonitorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "monitor", abstract: "Not built yet.")

    func run() async throws {
        throw ValidationError("beacon monitor is not built yet")
    }
}
