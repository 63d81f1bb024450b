import ArgumentParser
import Foundation
import HotwordAssistant

/// `hotword password`: changes the SUSI password of the account logged in.
struct PasswordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "password",
        abstract: "Change the SUSI.AI password of the account `hotword login` logged in.",
        discussion: """
            Asks for the current and the new password (twice) without echo on a terminal; otherwise \
            reads the current one and the new one as two lines of standard input. The new password \
            is checked against SUSI's policy first: 8 to 64 characters with a digit, an upper-case \
            letter and a character other than a letter, digit or _, and not the e-mail address. \
            The kept token stays valid. Update [susi] password yourself if you keep it there.
            """)

    @OptionGroup var susi: SUSIOptions

    func run() async throws {
        let settings = try susi.settings()
        let current = try PasswordPrompt.read("Current SUSI password: ")
        let new = try PasswordPrompt.read("New SUSI password: ")
        if isatty(STDIN_FILENO) == 1, try PasswordPrompt.read("New SUSI password again: ") != new {
            throw CommandFailure("the new passwords differ; nothing changed")
        }
        do {
            print(try await susi.client(settings).changePassword(current: current, new: new, tokenFile: settings.susiLogin.tokenFile))
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}
