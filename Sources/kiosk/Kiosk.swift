import ArgumentParser

/// The check-in kiosk's command line.
@main
struct Kiosk: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kiosk",
        abstract: "A venue check-in kiosk for people without smartphones.",
        subcommands: [
            Decode.self, Run.self, Simulate.self, Status.self, Config.self,
            SelfTestCommand.self, RegionCommand.self,
        ]
    )
}
