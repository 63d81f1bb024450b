import Foundation
import HotwordAudio
import HotwordCore

/// The text-to-speech programs synthesis can use: three from Debian, and the neural voices
/// `scripts/install-voices.sh` installs from PyPI — piper's, and any program keeping to
/// `VoiceProgramEngine`'s protocol.
public enum EngineKind: String, Sendable, Codable, CaseIterable, Comparable {
    case espeakNG = "espeak-ng"
    case flite
    case festival
    case piper
    case voiceProgram = "voice-program"

    /// The program that is run (and whose presence means the engine is installed).
    public var executable: String {
        switch self {
        case .espeakNG: "espeak-ng"
        case .flite: "flite"
        case .festival: "text2wave"
        case .piper: "piper"
        case .voiceProgram: NeuralVoices.programName
        }
    }

    public static func < (lhs: EngineKind, rhs: EngineKind) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// One voice of one engine, as the engine names it.
public struct Voice: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    public var engine: EngineKind
    /// What the engine is given: "en-us+m3" (espeak-ng voice + variant), "slt", "kal_diphone".
    public var name: String
    /// The language the voice reads in ("en-us", "de", "en"); non-English voices read the
    /// phrase with their own letter-to-sound rules, i.e. with an accent.
    public var language: String

    public init(engine: EngineKind, name: String, language: String) {
        self.engine = engine
        self.name = name
        self.language = language
    }

    public var isEnglish: Bool { language == "en" || language.hasPrefix("en-") }

    /// Engine and voice as one file-name-safe word, e.g. "espeak-ng-en-us+m3", "festival-kal_diphone".
    public var speakerID: String { "\(engine.rawValue)-\(name)" }

    public var description: String { "\(engine.rawValue) \(name)" }

    public static func < (lhs: Voice, rhs: Voice) -> Bool {
        (lhs.engine, lhs.name) < (rhs.engine, rhs.name)
    }
}

/// How one clip is to be spoken.
public struct SpeakingStyle: Sendable, Hashable, Codable {
    /// Speaking rate relative to the voice's default (1.2 = 20 % faster).
    public var rate: Double
    /// Voice pitch relative to the voice's default (1.1 = 10 % higher).
    public var pitch: Double

    public init(rate: Double = 1, pitch: Double = 1) {
        self.rate = rate
        self.pitch = pitch
    }
}

/// A text-to-speech program: lists its voices and renders text to 16 kHz mono samples.
protocol SpeechEngine: Sendable {
    var kind: EngineKind { get }
    /// Every voice it can speak with; `Synthesizer` decides how often each is used.
    func voices() throws(SynthesisError) -> [Voice]
    /// Speaks `text` with `voice` in `style`; `scratch` is a private folder for the engine's files.
    func render(_ text: String, voice: Voice, style: SpeakingStyle, scratch: URL) throws(SynthesisError) -> [Float]
}

extension SpeechEngine {
    /// Writes the text to a file the engine reads: text never passes through an argument
    /// where a leading '-' could be taken for an option.
    func writeText(_ text: String, in scratch: URL) throws(SynthesisError) -> URL {
        let url = scratch.appendingPathComponent("text.txt")
        do {
            try Data((text + "\n").utf8).write(to: url)
        } catch {
            throw .file(path: url.path, reason: "cannot write the text for \(kind.rawValue): \(error.localizedDescription)")
        }
        return url
    }

    /// Reads the engine's WAV at 16 kHz.
    func readOutput(_ url: URL) throws(SynthesisError) -> [Float] {
        do {
            return try AudioFileReader.read(url).samples
        } catch {
            throw .audio("\(kind.rawValue) output: \(error)")
        }
    }

    /// Reads the engine's WAV and raises its pitch by `pitch` by playing it `pitch` times faster
    /// (the classic speed perturbation: formants move with the pitch, like a smaller or larger
    /// speaker). The engine was asked for a rate of `rate / pitch`, so the tempo ends up at `rate`.
    func readOutput(_ url: URL, pitch: Double) throws(SynthesisError) -> [Float] {
        do {
            let native = try AudioFileReader.info(of: url).sampleRate
            let samples = try AudioFileReader.read(url, sampleRate: native).samples
            return try Resampler.convert(samples, from: Double(native) * pitch,
                                         to: Double(AudioFormat.sampleRate))
        } catch let error as AudioFileError {
            throw .audio("\(kind.rawValue) output: \(error)")
        } catch {
            throw .audio("\(kind.rawValue) output \(url.path): \(error)")
        }
    }
}
