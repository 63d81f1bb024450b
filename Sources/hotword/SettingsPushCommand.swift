import ArgumentParser
import Foundation
import HotwordAssistant
import HotwordSUSI

/// `hotword settings push`: hotword's settings stored as the account's.
struct SettingsPushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push",
        abstract: "Store hotword's speech and language settings as the account's settings on SUSI.",
        discussion: "The server ignores settings it does not know; they are read back and those it did not keep are named.")

    @OptionGroup var susi: SUSIOptions

    func run() async throws {
        let settings = try susi.settings()
        let tokenFile = settings.susiLogin.tokenFile
        let wanted = SettingsSync.susi(from: settings)
        let client = susi.client(settings)
        let stored: SUSIUserSettings
        do {
            print("SUSI: \(try await client.storeUserSettings(wanted, tokenFile: tokenFile))")
            stored = try await client.userSettings(tokenFile: tokenFile)
        } catch {
            throw CommandFailure("\(error)")
        }
        for (key, value) in wanted.sorted(by: { $0.key < $1.key }) {
            print("  \(key) = \(value)" + (stored[key] == value ? "" : "  (not stored)"))
        }
        let missing = wanted.filter { stored[$0.key] != $0.value }.keys.sorted()
        if !missing.isEmpty { throw CommandFailure("the server did not store \(missing.joined(separator: ", "))") }
    }
}
