import ArgumentParser
import HotwordAssistant

/// `--[no-]check-phrase` of `run` and `serve`: the second stage for every keyword, over
/// `check_phrase` in the files (per keyword or in `[detector]`).
struct PhraseCheckSwitch: ParsableArguments {
    @Flag(name: .customLong("check-phrase"), inversion: .prefixedNo,
          help: "Keep a detection only where pocketsphinx (US English) also spots the keyword's phrase (--no-check-phrase: never check). Default: check_phrase in hotword.toml, else as each model asks.")
    var enabled: Bool?

    func apply(to configuration: inout AssistantConfiguration) {
        guard let enabled else { return }
        configuration.detector.checkPhrase = enabled
        for keyword in configuration.wake.keywords.keys { configuration.wake.keywords[keyword]?.checkPhrase = enabled }
    }
}
