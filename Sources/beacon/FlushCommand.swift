import ArgumentParser

struct FlushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "flush", abstract: "Not built yet.")

    func run() async throws {
        throw ValidationError("beacon flush is not built yet")
    }
}
