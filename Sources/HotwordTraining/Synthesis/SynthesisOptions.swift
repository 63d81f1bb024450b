import Foundation
import HotwordSpotting

/// What a clip is for in training.
public enum ClipKind: String, Sendable, Codable, CaseIterable, Comparable {
    /// The wake phrase.
    case positive
    /// A phrase that sounds close to it (a hard negative).
    case confusable
    /// An ordinary sentence (negative speech in the same voices).
    case speech
    /// A real word that sounds like one of the phrase's, in the phrase (`SoundAlikes`).
    case soundAlike = "sound-alike"

    public static func < (lhs: ClipKind, rhs: ClipKind) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// How positive clips are checked for being recognisable.
public enum RecognitionCheck: String, Sendable, CaseIterable {
    /// Keyword spotting with pocketsphinx (see `KeywordCheck`).
    case pocketsphinx
    /// Only the duration and energy rules.
    case none
}

public struct SynthesisOptions: Sendable {
    /// The wake phrase, e.g. "hey susi" (case and punctuation are ignored).
    public var phrase: String
    /// Where clips and `manifest.jsonl` go.
    public var outputDirectory: URL
    /// Also make confusable phrases and generic sentences.
    public var negatives = false
    /// How many real words that sound like the phrase's (`SoundAlikes`) are spoken as negatives,
    /// into `sound-alike/`; 0 = none.
    public var soundAlikes = 0
    /// At most this many clips of each kind (positive, confusable, speech); nil = the whole plan.
    public var maximumClips: Int?
    /// The same seed (and options) gives the same clips and manifest.
    public var seed: UInt64 = 1
    public var check = RecognitionCheck.pocketsphinx
    /// Programs run at once.
    public var jobs = ProcessInfo.processInfo.activeProcessorCount
    /// Engines to use; nil = every one installed.
    public var engines: Set<EngineKind>?
    /// Where programs are looked for (a PATH-style list); nil = the PATH variable, and for the
    /// neural voices also `NeuralVoices.defaultFolder`'s `bin`.
    public var searchPath: String?
    /// Folders of piper voices (`NAME.onnx` with `NAME.onnx.json`).
    public var piperVoices = [NeuralVoices.defaultFolder.appendingPathComponent("voices")]
    /// The voice program (`VoiceProgramEngine`); nil = `hotword-voices` where it is installed.
    public var voiceProgram: URL?
    /// The CMU pronouncing dictionary used for the check (nil: espeak-ng's reading only).
    public var dictionary: URL? = Pronouncer.defaultDictionary
    public var thresholdPerPhone = KeywordCheck.defaultThresholdPerPhone

    /// Renditions (each with its own rate, pitch, level and silence) per voice and phrase. espeak-ng
    /// has ~100 variants per accent, so each English voice+variant is used twice and each accent
    /// voice once; flite and festival have a handful of (more natural) voices, each used 30 times.
    public var espeakRenditions = 2
    public var accentRenditions = 1
    public var otherEngineRenditions = 30
    /// Renditions of each generic sentence (voices drawn from those of the kept positives).
    public var sentenceRenditions = 3

    /// Speaking rate and pitch relative to each voice's default, drawn uniformly (pitch log-uniformly).
    public var rateRange: ClosedRange<Double> = 0.8...1.3
    public var pitchRange: ClosedRange<Double> = 0.85...1.25
    /// Peak level of a clip in dBFS, drawn uniformly.
    public var levelRange: ClosedRange<Double> = -24...(-1)
    /// Silence before and after the speech, in seconds, drawn uniformly for each side.
    public var silenceRange: ClosedRange<Double> = 0.1...0.7

    public init(phrase: String, outputDirectory: URL) {
        self.phrase = phrase
        self.outputDirectory = outputDirectory
    }

    func renditions(of voice: Voice) -> Int {
        voice.engine == .espeakNG ? (voice.isEnglish ? espeakRenditions : accentRenditions) : otherEngineRenditions
    }

    func validate() throws(SynthesisError) {
        if Phrase.normalised(phrase).isEmpty { throw .emptyPhrase(phrase) }
        if jobs < 1 { throw .invalidOption(name: "--jobs", value: String(jobs), expected: "at least 1") }
        if soundAlikes < 0 {
            throw .invalidOption(name: "--sound-alikes", value: String(soundAlikes), expected: "0 or more words")
        }
        if let maximumClips, maximumClips < 1 {
            throw .invalidOption(name: "--max-clips", value: String(maximumClips), expected: "at least 1")
        }
        if let engines, engines.isEmpty { throw .invalidOption(name: "engines", value: "none", expected: "at least one engine") }
        if !(thresholdPerPhone > 0 && thresholdPerPhone.isFinite) {
            throw .invalidOption(name: "threshold per phone", value: String(thresholdPerPhone), expected: "a positive number")
        }
        if rateRange.lowerBound <= 0 || pitchRange.lowerBound <= 0 || silenceRange.lowerBound < 0 || levelRange.upperBound > 0 {
            throw .invalidOption(name: "variation ranges", value: "\(rateRange), \(pitchRange), \(silenceRange), \(levelRange)",
                                 expected: "positive rate and pitch, non-negative silence, levels at most 0 dBFS")
        }
    }
}
