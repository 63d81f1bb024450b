import HotwordChildProcess

/// Why a phrase could not be given pronunciations. Every case names the phrase, word or file.
public enum PronunciationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The phrase has no letters or digits once punctuation is removed.
    case emptyPhrase(String)
    /// A word of the phrase has no pronunciation: not in the CMU dictionary, and espeak-ng gave no phonemes.
    case unpronounceable(word: String, reason: String)
    /// The pronouncing dictionary exists but cannot be read.
    case dictionaryUnreadable(path: String, reason: String)
    /// espeak-ng could not be run or failed.
    case espeakFailed(ProgramFailure)

    public var description: String {
        switch self {
        case .emptyPhrase(let phrase):
            "the phrase \"\(phrase)\" is empty: give the wake word as text, e.g. \"hey susi\""
        case .unpronounceable(let word, let reason):
            "cannot pronounce \"\(word)\": \(reason)"
        case .dictionaryUnreadable(let path, let reason):
            "\(path): cannot read the pronouncing dictionary: \(reason)"
        case .espeakFailed(let failure):
            "\(failure)"
        }
    }
}
