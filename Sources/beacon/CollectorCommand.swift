import ArgumentParser

struct CollectorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "collector", abstract: "Not built yet.")

    func run() async throws {
        throw ValidationError("beacon collector is not built yet")
    }
}
