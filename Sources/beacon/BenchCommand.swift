import ArgumentParser

struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "bench", abstract: "Not built yet.")

    func run() async throws {
        throw ValidationError("beacon bench is not built yet")
    }
}
