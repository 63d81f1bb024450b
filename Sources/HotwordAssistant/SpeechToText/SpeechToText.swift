import Foundation
import HotwordAudio
import HotwordCore
import HotwordSUSI
import HotwordWhisper
import HotwordWyoming

/// Turns one utterance into text.
///
/// Input is 16 kHz mono audio as Float samples in [-1, 1] (what `AudioFileReader` and the capture
/// path deliver). Silence gives an empty string, not an error.
public protocol SpeechRecognizer: Sendable {
    /// Transcribes one utterance: the words heard, separated by single spaces, or "" for none.
    func transcribe(_ samples: [Float]) async throws(SpeechToTextError) -> String
}

/// A transcript as the assistant uses it: words separated by single spaces, no surrounding
/// whitespace (engines differ: newlines per segment, a leading space, …).
func normalizedTranscript(_ text: String) -> String {
    text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
}

/// Why speech to text failed; each case names its backend and the cause.
public enum SpeechToTextError: Error, CustomStringConvertible, Equatable {
    /// A pocketsphinx model file or folder (`role`: acoustic model, language model, dictionary) is missing.
    case pocketsphinxModelMissing(role: String, path: String)
    /// pocketsphinx rejected its configuration (`arguments` as passed to it).
    case pocketsphinxInitializationFailed(arguments: [String])
    /// pocketsphinx's own log file cannot be opened for appending.
    case pocketsphinxLogNotWritable(path: String)
    /// The question model could not be built into `path` (see `QuestionModelFile`).
    case questionModelNotBuilt(path: String, reason: String)
    /// pocketsphinx could not load the question model at `path` or interpolate it with the general one.
    case questionModelRejected(path: String)
    /// A pocketsphinx decoding call returned an error code.
    case pocketsphinxDecodingFailed(call: String, code: Int32)
    /// The command backend is configured without any argument containing the WAV placeholder.
    case commandWithoutPlaceholder(arguments: [String], placeholder: String)
    /// The command backend's program could not be run or failed.
    case command(CommandError)
    /// The transcription server could not be reached or answered with an error status.
    case http(HTTPError)
    /// The transcription server answered 2xx with something that is not a transcript.
    case httpReplyInvalid(url: String, reason: String, body: String)
    /// The utterance could not be written to the temporary WAV file handed to a program or server.
    case audioNotWritten(path: String, reason: String)
    /// The Wyoming server could not be reached, timed out, or answered with an error.
    case wyoming(WyomingClientError)
    /// The Whisper model folder could not be loaded.
    case whisper(WhisperModelError)
    /// `backend = "whisper"` without a model folder.
    case whisperModelNotConfigured

    public var description: String {
        switch self {
        case .pocketsphinxModelMissing(let role, let path):
            "speech to text (pocketsphinx): \(role) not found at \(path)"
        case .pocketsphinxInitializationFailed(let arguments):
            "speech to text (pocketsphinx): decoder could not be created with \(arguments.joined(separator: " ")) (set a log file to see pocketsphinx's reason)"
        case .pocketsphinxLogNotWritable(let path):
            "speech to text (pocketsphinx): cannot write its log file \(path)"
        case .questionModelNotBuilt(let path, let reason):
            "speech to text (pocketsphinx): the question model could not be built into \(path): \(reason)"
        case .questionModelRejected(let path):
            "speech to text (pocketsphinx): \(path) could not be loaded as a language model (ARPA text or binary) and interpolated with the general one (set a log file to see pocketsphinx's reason)"
        case .pocketsphinxDecodingFailed(let call, let code):
            "speech to text (pocketsphinx): \(call) failed with code \(code)"
        case .commandWithoutPlaceholder(let arguments, let placeholder):
            "speech to text (command): no argument of \(arguments) contains \(placeholder), so the program would never see the audio"
        case .command(let error):
            "speech to text (command): \(error)"
        case .http(let error):
            "speech to text (http): \(error)"
        case .httpReplyInvalid(let url, let reason, let body):
            "speech to text (http): \(url) answered, but not with a transcript (\(reason)): \(body)"
        case .audioNotWritten(let path, let reason):
            "speech to text: could not write the utterance to \(path): \(reason)"
        case .wyoming(let error):
            "speech to text (wyoming): \(error)"
        case .whisper(let error):
            "speech to text (whisper): \(error)"
        case .whisperModelNotConfigured:
            "speech to text (whisper): no model folder (set stt.whisper.model or --whisper-model to a CTranslate2 Whisper folder with model.bin, vocabulary.txt and config.json)"
        }
    }
}

extension ScratchFolder {
    /// A fresh folder holding `samples` as `utterance.wav` (16 kHz 16-bit), for a recogniser
    /// that takes a file; the caller removes it.
    static func holdingUtterance(_ samples: [Float]) throws(SpeechToTextError) -> (folder: ScratchFolder, wav: URL) {
        let folder: ScratchFolder
        do { folder = try ScratchFolder("stt") } catch {
            throw .audioNotWritten(path: FileManager.default.temporaryDirectory.path, reason: "\(error)")
        }
        let wav = folder.file("utterance.wav")
        do {
            try AudioFileWriter.writeWAV(samples, to: wav, sampleRate: AudioFormat.sampleRate)
        } catch {
            folder.remove()
            throw .audioNotWritten(path: wav.path, reason: error.description)
        }
        return (folder, wav)
    }
}
