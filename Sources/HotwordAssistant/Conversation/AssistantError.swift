import HotwordAudio
import HotwordCore
import HotwordModels

/// Why the assistant could not start. Once running, failures are reported as
/// `AssistantEvent.error` and it carries on.
public enum AssistantError: Error, CustomStringConvertible {
    case model(ModelFileError)
    case detector(DetectorError)
    /// The second stage of a keyword's detections (`check_phrase`) could not be made.
    case phraseCheck(PhraseSpotterError)
    /// The microphone's name is unknown to ALSA, or it offers nothing usable. (One that ALSA
    /// knows but that is absent is waited for.)
    case capture(AudioDeviceError)
    /// The loudspeaker could not be opened.
    case playback(AudioDeviceError)
    case speechToText(SpeechToTextError)
    case textToSpeech(TextToSpeechError)
    /// The configured cue file cannot be played.
    case cue(file: String, reason: String)
    /// The folder for wake recordings (`[recording] keep_dir`) cannot be created.
    case keepDirectory(path: String, reason: String)

    public var description: String {
        switch self {
        case .model(let error): "wake-word model: \(error)"
        case .detector(let error): "wake-word detector: \(error)"
        case .phraseCheck(let error): "wake word: \(error)"
        case .capture(let error), .playback(let error): error.description
        case .speechToText(let error): error.description
        case .textToSpeech(let error): error.description
        case .cue(let file, let reason): "cue sound \(file) cannot be played: \(reason)"
        case .keepDirectory(let path, let reason): "recording.keep_dir: the folder \(path) cannot be created: \(reason)"
        }
    }
}
