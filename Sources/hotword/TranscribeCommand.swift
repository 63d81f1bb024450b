import ArgumentParser
import Foundation
import HotwordAssistant
import HotwordAudio

/// `hotword transcribe FILE…`: runs speech to text over audio files.
struct TranscribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcribe",
        abstract: "Print what the configured speech-to-text engine hears in audio files.",
        discussion: """
            Reads any format libsndfile reads (WAV, FLAC, OGG, …), converted to 16 kHz mono. With one file \
            the transcript alone is printed; with several, each line starts with the file name.
            """)

    @Argument(help: ArgumentHelp("Audio files.", valueName: "FILE"))
    var files: [String]

    @OptionGroup var speech: SpeechToTextOptions

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("Name at least one audio file.") }
    }

    func run() async throws {
        let recognizer: any SpeechRecognizer
        do {
            recognizer = try await speech.settings.makeRecognizer()
        } catch {
            report(error)
            throw ExitCode.failure
        }
        var failed = false
        for file in files {
            do {
                let audio = try AudioFileReader.read(URL(fileURLWithPath: file), sampleRate: speechRecognizerSampleRate)
                let text = try await recognizer.transcribe(audio.samples)
                print(files.count == 1 ? text : "\(file): \(text)")
            } catch let error as AudioFileError {
                report(error)  // names the file already
                failed = true
            } catch {
                report("\(file): \(error)")
                failed = true
            }
        }
        if failed { throw ExitCode.failure }
    }

    private func report(_ error: any Error) {
        report("\(error)")
    }

    private func report(_ message: String) {
        FileHandle.standardError.write(Data("hotword transcribe: \(message)\n".utf8))
    }
}
