import ArgumentParser

/// `beacon plan`: tracking plans for developers, before production: lint a plan, check
/// recorded events against it.
struct PlanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Check a tracking plan, or check recorded events against one.",
        discussion: """
            A plan is Beacon's own JSON file (Assets/plans/FORMAT.md) or a Segment tracking \
            plan's rules; docs/plans.md says what each does. Exit 0 when everything holds, \
            1 when events break the plan, 2 when the plan or the input cannot be read.
            """,
        subcommands: [PlanLintCommand.self, PlanCheckCommand.self])
}
