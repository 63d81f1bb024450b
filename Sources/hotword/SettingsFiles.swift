import Foundation
import HotwordAssistant
import HotwordSUSI
import Logging

/// Reading `hotword.toml` for the commands that use it, with the account settings pulled from
/// SUSI (`susi-settings.toml`, see `SettingsSync`) under it.
enum SettingsFiles {
    /// `file` alone, or the system file and then the user's; the pulled account settings, when
    /// there are any, first of all, so every key a file sets wins over them.
    static func load(only file: String?) throws -> AssistantConfiguration {
        let files = file.map { [$0] } ?? ConfigurationFiles.existing()
        let configuration = try load(files)
        // The files say where the token, and so the pulled settings, are.
        let pulled = SettingsSync.file(tokenFile: configuration.susiLogin.tokenFile)
        guard FileManager.default.fileExists(atPath: pulled.path) else { return configuration }
        return try load([pulled.path] + files)
    }

    /// `load(only:)`, after pulling the account's settings anew when `[susi] sync_settings` is on
    /// and a token is kept (`hotword run` at start and on reload). A pull that fails is logged and
    /// the settings pulled before stay in use.
    static func loadSyncing(only file: String?, logger: Logger) async throws -> AssistantConfiguration {
        let configuration = try load(only: file)
        let tokenFile = configuration.susiLogin.tokenFile
        guard configuration.syncSettings else { return configuration }
        guard let login = SUSIClient.login(keptIn: tokenFile) else {
            logger.notice("sync_settings: not logged in to SUSI (`hotword login`), so no account settings are pulled")
            return configuration
        }
        do {
            let pulled = try await SettingsSync.pull(client: SUSIClient(configuration: configuration.susi), tokenFile: tokenFile,
                                                     account: login)
            logger.info("sync_settings: pulled \(pulled.keys.count) settings of \(login)")
        } catch {
            logger.warning("sync_settings: \(error); the settings pulled before stay in use")
        }
        return try load(only: file)
    }

    private static func load(_ files: [String]) throws -> AssistantConfiguration {
        do {
            return try ConfigurationLoader.load(files, onto: AssistantConfiguration(clientVersion: HotwordVersion.current))
        } catch {
            throw failure(error.errors)
        }
    }

    /// The problems of the configuration files, one a line (status 78).
    static func failure(_ problems: [ConfigError]) -> CommandFailure {
        CommandFailure("\(problems.count == 1 ? "" : "\(problems.count) problems in the configuration:\n")\(ConfigErrors(problems))",
                       status: .configuration)
    }
}
