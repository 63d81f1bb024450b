import ArgumentParser
import Foundation
import HotwordAssistant
import HotwordSUSI

/// `hotword logout`: forgets the SUSI token here and tells the server.
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Forget the SUSI.AI access token and log out on the server.",
        discussion: """
            The token file and the account settings pulled with it (`hotword settings pull`) are \
            removed, even when the server cannot be reached. SUSI cannot revoke a \
            token: its logout ends only the server's session, so a copy of the token made elsewhere \
            keeps working until it expires.
            """)

    @OptionGroup var susi: SUSIOptions

    func run() async throws {
        let settings = try susi.settings()
        let outcome: SUSILogout
        do {
            outcome = try await susi.client(settings).logOut(tokenFile: settings.susiLogin.tokenFile)
        } catch {
            throw CommandFailure("\(error)")
        }
        try forgetPulledSettings(beside: settings.susiLogin.tokenFile)
        switch outcome {
        case .notLoggedIn:
            print("Not logged in.")
        case .loggedOut(let login, .success(let message)):
            print("Logged out \(login) (server: \(message)).")
        case .loggedOut(let login, .failure(let error)):
            print("Logged out \(login) here.")
            FileHandle.standardError.write(Data("(the server was not told: \(error))\n".utf8))
        }
    }

    /// The account's settings must not outlive the login they were pulled with.
    private func forgetPulledSettings(beside tokenFile: URL) throws {
        let pulled = SettingsSync.file(tokenFile: tokenFile)
        if unlink(pulled.path) != 0, errno != ENOENT {
            throw CommandFailure("cannot remove the pulled account settings \(pulled.path): \(String(cString: strerror(errno)))")
        }
    }
}
