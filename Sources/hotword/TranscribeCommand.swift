import ArgumentParser
import Foundation
import HotwordAssistant
import HotwordAudio
import HotwordCore
import HotwordTranscripts

/// `hotword transcribe FILE…`: runs speech to text over audio files.
struct TranscribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcribe",
        abstract: "Print what the configured speech-to-text engine hears in audio files.",
        discussion: """
            Reads any format libsndfile reads (WAV, FLAC, OGG, …), converted to 16 kHz mono. With one file \
            the transcript alone is printed; with several, each line starts with the file name. The engine is \
            that of hotword.toml ([stt]; read as `hotword run` reads it), with the options given here over it.

            With --reference, the files are those of a list of `file<TAB>text` lines (relative to the list's \
            folder; a first line `file<TAB>text` is a header), and each transcript is scored against its text: \
            the word error rate per file and in total, with its substitutions (S), deletions (D) and insertions \
            (I) of the reference's words. Both are compared after one normalisation: lower case, numbers as \
            words ("21" → "twenty one"), apostrophes dropped, other punctuation removed, whitespace collapsed.
            """)

    @Argument(help: ArgumentHelp("Audio files.", valueName: "FILE"))
    var files: [String] = []

    @Option(help: ArgumentHelp("Score the files of this list (file<TAB>text) against their transcripts.", valueName: "LIST.tsv"))
    var reference: String?

    @Option(help: ArgumentHelp("With --reference: only the first N files of the list.", valueName: "N"))
    var first: Int?

    @Flag(help: "With --reference: print the scores as one JSON object (per file and in total).")
    var json = false

    @Option(help: ArgumentHelp("Read settings from this file only (instead of the system and user files).", valueName: "FILE"))
    var config: String?

    @OptionGroup var speech: SpeechToTextOptions

    func validate() throws {
        if reference == nil {
            guard !files.isEmpty else { throw ValidationError("Name at least one audio file, or a list with --reference.") }
            guard first == nil, !json else { throw ValidationError("--first and --json go with --reference.") }
        } else {
            guard files.isEmpty else { throw ValidationError("Name audio files or --reference LIST.tsv, not both.") }
        }
        if let first, first < 1 { throw ValidationError("--first must be at least 1, not \(first).") }
    }

    func run() async throws {
        // A wrong list is reported before an engine loads its models.
        let references = try reference.map { (list: $0, transcripts: try loadReferences($0)) }
        let backend = try speech.settings(over: try SettingsFiles.load(only: config).stt)
        let recognizer: any SpeechRecognizer
        do {
            recognizer = try await backend.makeRecognizer()
        } catch {
            report(error)
            throw ExitCode.failure
        }
        if let references {
            try await score(references.transcripts, of: references.list, with: recognizer)
            return
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

    /// Transcribes the files of the reference list and prints how far each is from its text.
    private func score(_ transcripts: [ReferenceTranscript], of list: String, with recognizer: any SpeechRecognizer) async throws {
        let folder = URL(fileURLWithPath: list).deletingLastPathComponent()
        var total = TotalScore(files: [], failed: [])
        for entry in transcripts.prefix(first ?? transcripts.count) {
            let url = entry.file.hasPrefix("/") ? URL(fileURLWithPath: entry.file) : folder.appendingPathComponent(entry.file)
            do {
                let audio = try AudioFileReader.read(url, sampleRate: AudioFormat.sampleRate)
                let started = ContinuousClock.now
                let text = try await recognizer.transcribe(audio.samples)
                let errors = WordErrors(reference: TranscriptWords.normalized(entry.text), hypothesis: TranscriptWords.normalized(text))
                let score = FileScore(file: entry.file, reference: entry.text, transcript: text, errors: errors,
                                      audioSeconds: Double(audio.samples.count) / Double(AudioFormat.sampleRate),
                                      transcribingSeconds: (ContinuousClock.now - started) / .seconds(1))
                total.files.append(score)
                if !json { print(score.text) }
            } catch let error as AudioFileError {
                report("\(list):\(entry.line): \(error)")
                total.failed.append(entry.file)
            } catch {
                report("\(list):\(entry.line): \(entry.file): \(error)")
                total.failed.append(entry.file)
            }
        }
        print(json ? total.json : total.text)
        if !total.failed.isEmpty { throw ExitCode.failure }
    }

    /// The reference list; one that cannot be read or has a wrong line is a wrong input, as a
    /// wrong configuration is (status 78).
    private func loadReferences(_ list: String) throws -> [ReferenceTranscript] {
        do {
            let text: String
            do { text = try String(contentsOfFile: list, encoding: .utf8) } catch {
                throw ReferenceListError.unreadable(list: list, reason: (error as NSError).localizedDescription)
            }
            return try ReferenceTranscripts.parse(text, list: list)
        } catch {
            throw CommandFailure("\(error)", status: .configuration)
        }
    }

    private func report(_ error: any Error) {
        report("\(error)")
    }

    private func report(_ message: String) {
        FileHandle.standardError.write(Data("Error: \(message)\n".utf8))
    }
}
