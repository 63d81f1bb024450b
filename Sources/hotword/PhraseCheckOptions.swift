import ArgumentParser
import Foundation
import HotwordAssistant
import HotwordCore
import HotwordSpotting

/// `--check-phrase` and its threshold, for `detect`, `eval` and `bench`: the second stage after a
/// detection. Unset, a keyword is checked when its model asks for it (`hotword tune --check-phrase`), as `hotword run` does.
struct PhraseCheckOptions: ParsableArguments {
    @Flag(name: .customLong("check-phrase"), inversion: .prefixedNo,
          help: "A second stage: keep a detection only where pocketsphinx (US English) also spots the keyword's phrase in the 3 s around it (2 s before, 1 s after), lasting at least 50 ms a phone. Default: as the model asks.")
    var enabled: Bool?

    @Option(name: .customLong("check-threshold-per-phone"), help: ArgumentHelp("The second stage's spotting threshold per phone (lower hears more; default: the model's, else \(SpottingRule.defaultThresholdPerPhone)).", valueName: "P"))
    var thresholdPerPhone: Double?

    /// The keywords of `models` to check, each with its threshold per phone.
    func phrases(for models: [KeywordModel]) -> [String: Double] {
        let settings = Dictionary(models.flatMap(\.keywords).map { ($0, KeywordSettings(checkPhrase: enabled)) }) { first, _ in first }
        let phrases = KeywordModel.checkedPhrases(of: models, settings: settings,
                                                  defaultThresholdPerPhone: thresholdPerPhone ?? SpottingRule.defaultThresholdPerPhone)
        return thresholdPerPhone.map { threshold in phrases.mapValues { _ in threshold } } ?? phrases
    }

    /// The second stage as evaluation and tuning run it: the run-time spotter itself, so what they
    /// measure is what `run` does, with a decoder per core for their thousands of windows. A
    /// phrase without a pronunciation, or pocketsphinx's model missing, is a wrong setup (status 78).
    static func spotter(phrase: String, thresholdPerPhone: Double) throws -> PhraseSpotter {
        do {
            return try PhraseSpotter(phrase: phrase, thresholdPerPhone: thresholdPerPhone,
                                     parallelDecoders: ProcessInfo.processInfo.activeProcessorCount)
        } catch {
            throw CommandFailure("\(error)", status: .configuration)
        }
    }

    /// A spotter for each keyword of `models` to check. A keyword without a pronunciation, or
    /// pocketsphinx's model missing, is a wrong setup (status 78).
    func spotters(for models: [KeywordModel]) throws -> [String: PhraseSpotter] {
        do {
            return try PhraseSpotter.spotters(for: phrases(for: models))
        } catch {
            throw CommandFailure("\(error)", status: .configuration)
        }
    }
}
