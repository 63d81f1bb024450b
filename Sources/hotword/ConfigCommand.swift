import ArgumentParser

/// `hotword config …`: configuration file tools.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Work with hotword.toml configuration files.",
        subcommands: [ConfigCheckCommand.self])
}
