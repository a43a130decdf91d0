import ArgumentParser

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "demo", abstract: "Not built yet.")

    func run() async throws {
        throw ValidationError("beacon demo is not built yet")
    }
}
