import HotwordChildProcess
import HotwordSpotting

/// Why synthesising training clips could not start or go on. Every case names what was asked for
/// and what was expected, so the message alone tells the user what to fix.
public enum SynthesisError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The phrase has no letters or digits once punctuation is removed.
    case emptyPhrase(String)
    /// None of the text-to-speech programs is installed (or none of the requested ones).
    case noEngine(looked: [String], searchPath: String)
    /// The engines are installed but list no voices.
    case noVoices(engines: [String])
    /// A requested engine is not installed.
    case engineMissing(engine: String, executable: String)
    /// piper was asked for and is installed, but no voice is in the voice folders.
    case noPiperVoices(folders: [String])
    /// The output folder cannot be created or written.
    case outputNotWritable(path: String, reason: String)
    /// An option is out of range.
    case invalidOption(name: String, value: String, expected: String)
    /// The recogniser used for the quality check is not installed.
    case recognizerMissing(executable: String, package: String)
    /// The phrase cannot be pronounced (a word neither in the CMU dictionary nor read by espeak-ng).
    case pronunciation(PronunciationError)
    /// A program could not be started, timed out or failed.
    case programFailed(command: String, reason: String)
    /// Reading or writing audio failed.
    case audio(String)
    /// A working file could not be written or read.
    case file(path: String, reason: String)

    public var description: String {
        switch self {
        case .emptyPhrase(let phrase):
            "the phrase \"\(phrase)\" is empty: give the wake word as text, e.g. \"hey susi\""
        case .noEngine(let looked, let searchPath):
            "no text-to-speech engine found: looked for \(looked.joined(separator: ", ")) in PATH=\(searchPath); "
                + "install espeak-ng, flite or festival (scripts/deps.sh)"
        case .noVoices(let engines):
            "\(engines.joined(separator: ", ")) list no voices: install voices (e.g. festvox-kallpc16k for festival)"
        case .engineMissing(let engine, let executable):
            "text-to-speech engine \(engine) was requested but \(executable) is not installed"
                + ([EngineKind.piper.rawValue, EngineKind.voiceProgram.rawValue].contains(engine)
                    ? " (scripts/install-voices.sh puts it in \(NeuralVoices.defaultFolder.path)/bin)" : "")
        case .noPiperVoices(let folders):
            "piper has no voices: no NAME.onnx with its NAME.onnx.json in \(folders.joined(separator: ", ")); "
                + "install some with scripts/install-voices.sh or give the folder with --piper-voices"
        case .outputNotWritable(let path, let reason):
            "cannot write to the output folder \(path): \(reason)"
        case .invalidOption(let name, let value, let expected):
            "\(name) \(value) is invalid: expected \(expected)"
        case .recognizerMissing(let executable, let package):
            "the pocketsphinx check needs \(executable) (Debian package \(package)); install it or use --check none"
        case .pronunciation(let error):
            "\(error)"
        case .programFailed(let command, let reason):
            "\(command) failed: \(reason)"
        case .audio(let reason):
            reason
        case .file(let path, let reason):
            "\(path): \(reason)"
        }
    }
}

extension SynthesisError {
    /// Runs `program` (a `Subprocess.run`), its failure reported as `programFailed`.
    @discardableResult
    static func reporting<Value>(_ program: () throws(ProgramFailure) -> Value) throws(SynthesisError) -> Value {
        do {
            return try program()
        } catch {
            throw .programFailed(command: error.command, reason: error.reason)
        }
    }
}
