import Foundation
import HotwordCore

/// When pocketsphinx is said to spot a phrase — one rule for the training check
/// (`pocketsphinx_batch`, `KeywordCheck`) and the run-time spotter (libpocketsphinx,
/// `PhraseSpotter`), so that `hotword eval --check-phrase` measures what `hotword detect
/// --check-phrase` does.
///
/// A window holds the phrase when pocketsphinx, spotting keyphrases over the US English model,
/// finds any pronunciation of it (CMU dictionary variants and espeak-ng's reading) with a score
/// ratio against its phone loop of at least `thresholdPerPhone` raised to the number of phones —
/// a per-phone threshold, so long and short phrases are judged alike — lasting at least
/// `minimumSecondsPerPhone` for each of its phones. Before decoding, each
/// window is normalised to a fixed peak and given a faint noise floor (−55 dBFS RMS): digitally
/// silent stretches otherwise throw pocketsphinx's cepstral mean normalisation off and it misses
/// even clearly spoken words. The noise is the same for every window, so a verdict depends on
/// the window's audio alone.
public struct SpottingRule: Sendable, Equatable {
    /// Calibrated on TTS clips and on the real recordings in shared/data/keywords: 1e-6 per
    /// phone keeps most clearly spoken clips and accepts none of the other keywords' clips.
    public static let defaultThresholdPerPhone = 1e-6
    /// People say even a hurried phrase at under 20 phones a second; pocketsphinx, whose phones
    /// may last three frames, also matches short bursts of other speech and of noise that fast.
    /// Chosen on the recordings of people saying "computer", "jarvis" and "alexa" (in café, rain
    /// and traffic noise at 10 dB) against the negative speech corpora: it keeps 96.5–99.6 % of
    /// the people pocketsphinx spots and drops a third to a half of its false spots
    /// (docs/training.md).
    public static let defaultMinimumSecondsPerPhone = 0.05
    /// pocketsphinx's frames per second (`-frate`).
    public static let framesPerSecond = 100.0
    /// The most pronunciation combinations spotted at once (they multiply across words).
    static let maximumKeyphrases = 16
    /// Peak level and noise floor of the copy pocketsphinx decodes.
    static let peak: Float = 0.5
    static let noiseFloorAmplitude: Float = 0.003
    static let noiseSeed: UInt64 = 0x6E6F_6973_6566_6C72

    /// One pronunciation of the whole phrase: its words are the dictionary's pseudo-words
    /// (w0p1 = the phrase's first word, its second pronunciation).
    struct Keyphrase: Sendable, Equatable {
        var words: [String]
        var phoneCount: Int
    }

    /// What pocketsphinx reports for one spotting of a keyphrase: its words as the decoder names
    /// them, and its first and last frame.
    public struct Spotting: Sendable, Equatable {
        public var words: String
        public var frames: ClosedRange<Int>

        public init(words: String, frames: ClosedRange<Int>) {
            self.words = words
            self.frames = frames
        }
    }

    public let thresholdPerPhone: Double
    public let minimumSecondsPerPhone: Double
    let dictionaryLines: [String]
    let keyphrases: [Keyphrase]

    /// The rule for `phrase`, pronounced by `pronouncer`.
    public init(phrase: String, pronouncer: Pronouncer, thresholdPerPhone: Double = defaultThresholdPerPhone,
                minimumSecondsPerPhone: Double = defaultMinimumSecondsPerPhone) throws(PronunciationError) {
        let words = Phrase.words(of: phrase)
        guard !words.isEmpty else { throw .emptyPhrase(phrase) }
        self.init(pronunciations: try pronouncer.pronunciations(of: words), thresholdPerPhone: thresholdPerPhone,
                  minimumSecondsPerPhone: minimumSecondsPerPhone)
    }

    /// `pronunciations[w]` lists the ARPAbet pronunciations of word `w` of the phrase.
    public init(pronunciations: [[[String]]], thresholdPerPhone: Double = defaultThresholdPerPhone,
                minimumSecondsPerPhone: Double = defaultMinimumSecondsPerPhone) {
        self.thresholdPerPhone = thresholdPerPhone
        self.minimumSecondsPerPhone = minimumSecondsPerPhone
        dictionaryLines = pronunciations.enumerated().flatMap { word, variants in
            variants.enumerated().map { variant, phones in "w\(word)p\(variant) " + phones.joined(separator: " ") }
        }
        var combinations: [Keyphrase] = [Keyphrase(words: [], phoneCount: 0)]
        for (word, variants) in pronunciations.enumerated() {
            combinations = combinations.flatMap { prefix in
                variants.enumerated().map { variant, phones in
                    Keyphrase(words: prefix.words + ["w\(word)p\(variant)"], phoneCount: prefix.phoneCount + phones.count)
                }
            }
            combinations = Array(combinations.prefix(Self.maximumKeyphrases))
        }
        keyphrases = combinations
    }

    /// pocketsphinx's pronouncing dictionary (`-dict`): the pseudo-words and their phones.
    public var dictionaryFile: String { dictionaryLines.joined(separator: "\n") + "\n" }

    /// pocketsphinx's keyphrase list (`-kws`): every pronunciation of the phrase with its threshold.
    public var keyphraseFile: String {
        keyphrases.map { phrase in
            let threshold = pow(thresholdPerPhone, Double(phrase.phoneCount))
            return phrase.words.joined(separator: " ") + " /" + String(format: "%.3e", threshold) + "/"
        }.joined(separator: "\n") + "\n"
    }

    /// Whether `spottings` (pocketsphinx's, over one window, above the threshold already) hold the
    /// phrase: one of its pronunciations, lasting long enough for its phones.
    public func holdsPhrase(_ spottings: [Spotting]) -> Bool {
        spottings.contains { spotting in
            let words = spotting.words.split(separator: " ").map(String.init)
            guard let phrase = keyphrases.first(where: { $0.words == words }) else { return false }
            let seconds = Double(spotting.frames.count) / Self.framesPerSecond
            return seconds >= minimumSecondsPerPhone * Double(phrase.phoneCount)
        }
    }

    /// The 16-bit copy of a window of 16 kHz mono audio that pocketsphinx decodes: normalised to
    /// the fixed peak, with the noise floor added.
    public static func decodedCopy(of samples: [Float]) -> [Int16] {
        let loudest = samples.reduce(Float(0)) { max($0, abs($1)) }
        let gain = loudest > 0 ? peak / loudest : 0
        var random = SeededRandom(seed: noiseSeed)
        return samples.map { sample in
            let value = sample * gain + random.uniform(limit: noiseFloorAmplitude)
            return Int16(clamping: Int((value * 32767).rounded()))
        }
    }
}
