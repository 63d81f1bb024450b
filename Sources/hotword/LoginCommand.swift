import ArgumentParser
import Foundation
import HotwordAssistant

/// `hotword login`: logs in to SUSI and keeps the token for `ask`, `run` and the account commands.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Log in to SUSI.AI and keep the access token (mode 0600) for the other commands.",
        discussion: """
            Asks for the password without echo on a terminal; otherwise reads one line of standard \
            input. The password is not stored, and neither it nor the token is printed.
            """)

    @Option(help: "The account's e-mail address (default: [susi] login).")
    var login: String?

    @OptionGroup var susi: SUSIOptions

    func run() async throws {
        let settings = try susi.settings()
        guard let login = login ?? (settings.susiLogin.login.isEmpty ? nil : settings.susiLogin.login) else {
            throw ValidationError("Give --login EMAIL or set [susi] login.")
        }
        let password = try PasswordPrompt.read("SUSI password for \(login): ")
        let tokenFile = settings.susiLogin.tokenFile
        do {
            let expires = try await susi.client(settings).logIn(as: login, password: password, tokenFile: tokenFile)
            print("Logged in to \(settings.susi.server.absoluteString) as \(login) until \(isoTime(expires)); token kept in \(tokenFile.path).")
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}
