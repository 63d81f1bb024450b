import ArgumentParser
import Foundation
import HotwordAssistant
import HotwordSUSI

/// `--server`, `--config` and `--language` of the SUSI account and skill commands: the `[susi]`
/// section of the configuration files (for the account and token file), overridden by the options.
struct SUSIOptions: ParsableArguments {
    @Option(help: "The SUSI server (default: [susi] server, or \(SUSIConfiguration.defaultServer.absoluteString)).")
    var server: String?

    @Option(help: ArgumentHelp("Read settings from this file only (instead of the system and user files).", valueName: "FILE"))
    var config: String?

    @Option(help: "The language (ISO 639-1; default: [susi] language, or en).")
    var language: String?

    func validate() throws {
        try Self.checkServer(server)
    }

    /// `--server`, wherever it is given, is the URL of a SUSI server.
    static func checkServer(_ server: String?) throws(ValidationError) {
        guard let server else { return }
        guard let url = URL(string: server), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            throw ValidationError("--server must be an http or https URL, not '\(server)'.")
        }
    }

    /// The configuration files with the options applied.
    func settings() throws -> AssistantConfiguration {
        var configuration = try SettingsFiles.load(only: config)
        if let server { configuration.susi.server = URL(string: server)! }
        if let language { configuration.susi.language = language }
        return configuration
    }

    /// A client without the account: these commands handle the token themselves.
    func client(_ settings: AssistantConfiguration) -> SUSIClient {
        SUSIClient(configuration: settings.susi)
    }
}
