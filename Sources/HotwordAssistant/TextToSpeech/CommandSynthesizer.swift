import Foundation
import HotwordAudio

/// Text to speech by an external program, run without a shell. The text arrives on its
/// standard input; the audio (any format libsndfile reads, usually WAV) is taken from the file
/// named by `{wav}` in the arguments or, without that placeholder, from its standard output:
///
///     ["piper", "--model", "en_US-lessac-medium.onnx", "--output_file", "{wav}"]
///     ["espeak-ng", "--stdin", "-v", "en-us", "--stdout"]
public struct CommandSynthesizer: SpeechSynthesizer {
    public static let wavPlaceholder = "{wav}"

    /// The program (a path, or a name looked up in $PATH) and its arguments.
    public let arguments: [String]
    /// How long the program may run per text before it is stopped.
    public let timeout: Duration

    public init(arguments: [String], timeout: Duration = .seconds(60)) throws(TextToSpeechError) {
        guard !arguments.isEmpty else { throw .command(.emptyCommand) }
        self.arguments = arguments
        self.timeout = timeout
    }

    public func synthesize(_ text: String) async throws(TextToSpeechError) -> SynthesizedAudio {
        let program = arguments[0]
        let folder: ScratchFolder
        do { folder = try ScratchFolder("tts") } catch {
            throw .command(.launchFailed(program: program, reason: "cannot create a temporary folder: \(error)"))
        }
        defer { folder.remove() }
        let input = folder.file("text.txt")
        do { try Data((text + "\n").utf8).write(to: input) } catch {
            throw .command(.launchFailed(program: program, reason: "cannot write its input \(input.path): \(error)"))
        }
        let wav = folder.file("speech.wav")
        let writesFile = arguments.dropFirst().contains { $0.contains(Self.wavPlaceholder) }
        let runner = CommandRunner(
            arguments: arguments.map { $0.replacingOccurrences(of: Self.wavPlaceholder, with: wav.path) },
            timeout: timeout)
        let output: URL
        do { output = try await runner.run(standardInput: input, in: folder.url) } catch { throw .command(error) }

        let audioFile = writesFile ? wav : output
        do {
            let rate = try AudioFileReader.info(of: audioFile).sampleRate
            let audio = try AudioFileReader.read(audioFile, sampleRate: rate)
            return SynthesizedAudio(samples: audio.samples, sampleRate: audio.sampleRate)
        } catch {
            throw .commandAudioUnreadable(program: program, source: writesFile ? wav.path : "its standard output",
                                          reason: error.description)
        }
    }
}
