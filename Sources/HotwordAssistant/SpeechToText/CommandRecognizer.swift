import Foundation

/// Speech to text by an external program, e.g. whisper.cpp's command-line tool:
/// `["whisper-cli", "-m", "ggml-base.en.bin", "-nt", "-np", "-f", "{wav}"]`.
///
/// Each utterance is written to a temporary 16 kHz 16-bit WAV file whose path replaces
/// `{wav}` in the arguments; the program runs without a shell, and whatever it prints on
/// standard output is the transcript (whitespace collapsed). The file is removed afterwards.
public struct CommandRecognizer: SpeechRecognizer {
    public static let wavPlaceholder = "{wav}"

    /// The program (a path, or a name looked up in $PATH) and its arguments.
    public let arguments: [String]
    /// How long the program may run per utterance before it is stopped.
    public let timeout: Duration

    /// Throws when there is no program or no argument takes the WAV file.
    public init(arguments: [String], timeout: Duration = .seconds(60)) throws(SpeechToTextError) {
        guard !arguments.isEmpty else { throw .command(.emptyCommand) }
        guard arguments.dropFirst().contains(where: { $0.contains(Self.wavPlaceholder) }) else {
            throw .commandWithoutPlaceholder(arguments: arguments, placeholder: Self.wavPlaceholder)
        }
        self.arguments = arguments
        self.timeout = timeout
    }

    public func transcribe(_ samples: [Float]) async throws(SpeechToTextError) -> String {
        let (folder, wav) = try ScratchFolder.holdingUtterance(samples)
        defer { folder.remove() }
        let runner = CommandRunner(
            arguments: arguments.map { $0.replacingOccurrences(of: Self.wavPlaceholder, with: wav.path) },
            timeout: timeout)
        let output: URL
        do { output = try await runner.run(standardInput: nil, in: folder.url) } catch { throw .command(error) }
        let text = (try? Data(contentsOf: output)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        return normalizedTranscript(text)
    }
}
