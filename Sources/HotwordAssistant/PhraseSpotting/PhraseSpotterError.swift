import HotwordSpotting

/// Why a phrase spotter could not be made or could not decode. Every case names the phrase, file
/// or call, and what was expected.
public enum PhraseSpotterError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The phrase has no pronunciation (empty, or a word neither in the dictionary nor read by espeak-ng).
    case pronunciation(phrase: String, PronunciationError)
    /// A pocketsphinx model file is missing (`role`: acoustic model, dictionary).
    case modelMissing(role: String, path: String)
    /// pocketsphinx's own log file cannot be opened for appending.
    case logNotWritable(path: String)
    /// The keyphrase list and pronunciations handed to pocketsphinx cannot be written.
    case workFile(path: String, reason: String)
    /// pocketsphinx rejected its configuration (`arguments` as passed to it).
    case initializationFailed(arguments: [String])
    /// A pocketsphinx decoding call returned an error code.
    case decodingFailed(call: String, code: Int32)

    public var description: String {
        switch self {
        case .pronunciation(let phrase, let error):
            "phrase check for \"\(phrase)\": \(error)"
        case .modelMissing(let role, let path):
            "phrase check (pocketsphinx): \(role) not found at \(path); install pocketsphinx-en-us (scripts/deps.sh)"
        case .logNotWritable(let path):
            "phrase check (pocketsphinx): cannot write its log file \(path)"
        case .workFile(let path, let reason):
            "phrase check (pocketsphinx): cannot write \(path): \(reason)"
        case .initializationFailed(let arguments):
            "phrase check (pocketsphinx): decoder could not be created with \(arguments.joined(separator: " ")) (set a log file to see pocketsphinx's reason)"
        case .decodingFailed(let call, let code):
            "phrase check (pocketsphinx): \(call) failed with code \(code)"
        }
    }
}
