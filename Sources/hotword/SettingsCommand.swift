import ArgumentParser

/// `hotword settings pull|push`: the settings SUSI keeps for the account.
struct SettingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "Fetch or store the settings SUSI.AI keeps for your account (speech output, rate, pitch, language).",
        discussion: """
            speechOutput (false: answers only printed, tts.backend = "none"), speechOutputAlways \
            (tts.speak_always: `hotword ask` speaks too), speechRate and speechPitch (× 175 words a \
            minute and × 50: tts.espeak.rate and pitch), prefLanguage (susi.language) and ttsLanguage \
            (tts.espeak.voice). Pulled settings are kept in susi-settings.toml beside the SUSI token \
            and read before the configuration files: a key you set in hotword.toml wins. \
            [susi] sync_settings = true makes `hotword run` pull at start and on reload.
            """,
        subcommands: [SettingsPullCommand.self, SettingsPushCommand.self])
}
