import HotwordWyoming

/// Speech audio made by a synthesiser: mono Float samples in [-1, 1] at the engine's own rate.
public struct SynthesizedAudio: Sendable, Equatable {
    public var samples: [Float]
    public var sampleRate: Int

    public init(samples: [Float], sampleRate: Int) {
        self.samples = samples
        self.sampleRate = sampleRate
    }

    /// The length in seconds.
    public var duration: Double {
        sampleRate > 0 ? Double(samples.count) / Double(sampleRate) : 0
    }
}

/// Turns text into speech audio. The assistant holds an optional synthesiser: without one
/// (backend "none") answers are only printed.
public protocol SpeechSynthesizer: Sendable {
    func synthesize(_ text: String) async throws(TextToSpeechError) -> SynthesizedAudio
}

/// Why text to speech failed; each case names its backend and the cause.
public enum TextToSpeechError: Error, CustomStringConvertible, Equatable {
    /// A setting is outside what the backend accepts.
    case invalidSetting(backend: String, name: String, value: String, expected: String)
    /// espeak-ng could not load its installed data (package espeak-ng-data).
    case espeakInitializationFailed(message: String)
    /// espeak-ng has no voice of this name.
    case espeakVoiceNotFound(voice: String)
    /// espeak-ng failed while synthesising.
    case espeakSynthesisFailed(voice: String, message: String)
    /// The command backend's program could not be run or failed.
    case command(CommandError)
    /// The command backend's program ran but left no readable audio (`source`: its output file or stdout).
    case commandAudioUnreadable(program: String, source: String, reason: String)
    /// The Wyoming server could not be reached, timed out, or answered with an error.
    case wyoming(WyomingClientError)
    /// The Wyoming server's audio cannot be played: no audio, or not PCM in a known format.
    case wyomingAudioInvalid(server: String, reason: String)

    public var description: String {
        switch self {
        case .invalidSetting(let backend, let name, let value, let expected):
            "text to speech (\(backend)): \(name) = \(value) is invalid, expected \(expected)"
        case .espeakInitializationFailed(let message):
            "text to speech (espeak-ng): cannot load its data (is espeak-ng-data installed?): \(message)"
        case .espeakVoiceNotFound(let voice):
            "text to speech (espeak-ng): no voice named \(voice) (see `espeak-ng --voices`)"
        case .espeakSynthesisFailed(let voice, let message):
            "text to speech (espeak-ng): synthesis with voice \(voice) failed: \(message)"
        case .command(let error):
            "text to speech (command): \(error)"
        case .commandAudioUnreadable(let program, let source, let reason):
            "text to speech (command): \(program) left no readable audio in \(source): \(reason)"
        case .wyoming(let error):
            "text to speech (wyoming): \(error)"
        case .wyomingAudioInvalid(let server, let reason):
            "text to speech (wyoming): \(server) sent audio that cannot be played: \(reason)"
        }
    }
}
