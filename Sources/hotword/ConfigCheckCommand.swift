import ArgumentParser
import Foundation
import HotwordAssistant

/// `hotword config check FILE`: every problem of a configuration file, with its line.
struct ConfigCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a configuration file: unknown keys, bad values, missing models.",
        discussion: """
            Prints one line per problem ('FILE:LINE: …', with what was expected, and for a \
            misspelt key the key it probably meant) after 'Error: ', as `hotword run` does, and \
            exits with status 78 (EX_CONFIG) if there is any; prints 'FILE: OK' otherwise.
            """)

    @Argument(help: "The file to check, e.g. ~/.config/hotword/hotword.toml.")
    var file: String

    func run() throws {
        let problems = ConfigurationLoader.check(file: file)
        guard problems.isEmpty else { throw SettingsFiles.failure(problems) }
        print("\(file): OK")
    }
}
