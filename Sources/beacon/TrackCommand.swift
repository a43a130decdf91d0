import ArgumentParser

struct TrackCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "track", abstract: "Not built yet.")

    func run() async throws {
        throw ValidationError("beacon track is not built yet")
    }
}
