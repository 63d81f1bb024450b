import ArgumentParser
import HotwordAssistant
import HotwordCore
import HotwordSpotting

/// `--check-phrase` and its threshold, for `detect` and `eval`: the second stage after a detection.
struct PhraseCheckOptions: ParsableArguments {
    @Flag(name: .customLong("check-phrase"), help: "A second stage: keep a detection only where pocketsphinx (US English) also spots the model's phrase in the 3 s around it (2 s before, 1 s after), as `synthesize` checks its clips.")
    var enabled = false

    @Option(name: .customLong("check-threshold-per-phone"), help: ArgumentHelp("The second stage's spotting threshold per phone (lower hears more).", valueName: "P"))
    var thresholdPerPhone = SpottingRule.defaultThresholdPerPhone

    /// A spotter for each keyword of `models`, or none without `--check-phrase`. A keyword
    /// without a pronunciation, or pocketsphinx's model missing, is a wrong setup (status 78).
    func spotters(for models: [KeywordModel]) throws -> [String: PhraseSpotter] {
        guard enabled else { return [:] }
        var spotters: [String: PhraseSpotter] = [:]
        for keyword in models.flatMap(\.keywords) where spotters[keyword] == nil {
            do {
                spotters[keyword] = try PhraseSpotter(phrase: keyword, thresholdPerPhone: thresholdPerPhone)
            } catch {
                throw CommandFailure("\(error)", status: .configuration)
            }
        }
        return spotters
    }
}
