import ArgumentParser
import Foundation
import HotwordAssistant
import HotwordAudio
import HotwordCore

/// `hotword transcribe FILE…`: runs speech to text over audio files.
struct TranscribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcribe",
        abstract: "Print what the configured speech-to-text engine hears in audio files.",
        discussion: """
            Reads any format libsndfile reads (WAV, FLAC, OGG, …), converted to 16 kHz mono. With one file \
            the transcript alone is printed; with several, each line starts with the file name. The engine is \
            that of hotword.toml ([stt]; read as `hotword run` reads it), with the options given here over it.
            """)

    @Argument(help: ArgumentHelp("Audio files.", valueName: "FILE"))
    var files: [String]

    @Option(help: ArgumentHelp("Read settings from this file only (instead of the system and user files).", valueName: "FILE"))
    var config: String?

    @OptionGroup var speech: SpeechToTextOptions

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("Name at least one audio file.") }
    }

    func run() async throws {
        let backend = try speech.settings(over: try SettingsFiles.load(only: config).stt)
        let recognizer: any SpeechRecognizer
        do {
            recognizer = try await backend.makeRecognizer()
        } catch {
            report(error)
            throw ExitCode.failure
        }
        var failed = false
        for file in files {
            do {
                let audio = try AudioFileReader.read(URL(fileURLWithPath: file), sampleRate: AudioFormat.sampleRate)
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
        FileHandle.standardError.write(Data("Error: \(message)\n".utf8))
    }
}
