import ArgumentParser
import Foundation
import HotwordAssistant
import HotwordSUSI

/// `hotword whoami`: whose SUSI token is kept, and whether the server still takes it.
struct WhoamiCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whoami",
        abstract: "Show the SUSI.AI account logged in, and check its token with the server.",
        discussion: "Exit status 0 when logged in with a valid token, 1 otherwise.")

    @OptionGroup var susi: SUSIOptions

    func run() async throws {
        let settings = try susi.settings()
        let status: SUSILoginStatus?
        do {
            status = try await susi.client(settings).loginStatus(tokenFile: settings.susiLogin.tokenFile)
        } catch {
            throw CommandFailure("cannot check the SUSI login: \(error)")
        }
        guard let status else { throw CommandFailure("not logged in (`hotword login` logs in)") }
        guard status.loggedIn else {
            throw CommandFailure("the token of \(status.login) on \(status.server) is no longer valid (`hotword login` logs in again)")
        }
        print("\(status.login) on \(status.server), token valid until \(isoTime(status.expires))")
    }
}
