import ArgumentParser
import Foundation
import HotwordAssistant
import HotwordSUSI

/// `hotword settings pull`: the account's settings from SUSI, kept for hotword's commands.
struct SettingsPullCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pull",
        abstract: "Fetch the account's settings from SUSI and use them (under hotword.toml's own keys).")

    @OptionGroup var susi: SUSIOptions

    func run() async throws {
        let settings = try susi.settings()
        let tokenFile = settings.susiLogin.tokenFile
        let pulled: SettingsSync.Pulled
        do {
            pulled = try await SettingsSync.pull(client: susi.client(settings), tokenFile: tokenFile,
                                                 account: SUSIClient.login(keptIn: tokenFile) ?? "the account")
        } catch {
            throw CommandFailure("\(error)")
        }
        let file = SettingsSync.file(tokenFile: tokenFile).path
        if pulled.keys.isEmpty {
            print("The account has no settings hotword uses; \(file) sets nothing.")
        } else {
            print("Pulled into \(file) (keys set in hotword.toml win):")
            for (key, value) in pulled.keys { print("  \(key) = \(value)") }
        }
        for setting in pulled.unusable {
            FileHandle.standardError.write(Data("(ignored the account's \(setting): not a value hotword can use)\n".utf8))
        }
    }
}
