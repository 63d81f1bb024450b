import Foundation
import HotwordAssistant
import HotwordTestSupport
import Testing

/// CommandRecognizer running real programs: shell scripts written by the test, and
/// pocketsphinx's own command-line recogniser.
@Suite struct CommandRecognizerTests {
    @Test func readsTheTranscriptFromStandardOutputAndRemovesTheWAV() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Reports the file it was given (size and header) so the test can check what it received.
        let program = try SpeechFixtures.script("stt", in: folder, """
            echo "$1" > "\(folder.path)/path"
            echo "  the file has"
            echo "$(wc -c < "$2") bytes of $(head -c 4 "$2")"
            """)
        let recognizer = try CommandRecognizer(arguments: [program, "--file={wav}", "{wav}"])
        let samples = [Float](repeating: 0.25, count: 8_000)

        let text = try await recognizer.transcribe(samples)

        #expect(text == "the file has \(44 + 2 * samples.count) bytes of RIFF")
        let path = try String(contentsOf: folder.appendingPathComponent("path"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(path.hasPrefix("--file=/") && path.hasSuffix(".wav"))
        #expect(!FileManager.default.fileExists(atPath: String(path.dropFirst("--file=".count))))
    }

    @Test func runsPocketsphinxContinuousOnTheUtterance() async throws {
        let recognizer = try CommandRecognizer(arguments: ["pocketsphinx_continuous", "-infile", "{wav}", "-logfn", "/dev/null"])
        let text = try await recognizer.transcribe(try await SpeechFixtures.speech("what is the weather like today"))
        #expect(transcript(text, contains: "weather"), "heard \"\(text)\"")
    }

    @Test func aMissingProgramIsNamed() async throws {
        let recognizer = try CommandRecognizer(arguments: ["hotword-no-such-recognizer", "{wav}"])
        let error = await #expect(throws: SpeechToTextError.self) { try await recognizer.transcribe([0, 0]) }
        guard case .command(.programNotFound(let program, _)) = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(program == "hotword-no-such-recognizer")
        #expect(error?.description.contains("speech to text (command)") == true)
    }

    @Test func aFailingProgramReportsItsStatusAndLastErrorLine() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let program = try SpeechFixtures.script("stt", in: folder, """
            echo "loading model" >&2
            echo "error: model file not found" >&2
            echo "" >&2
            exit 3
            """)
        let recognizer = try CommandRecognizer(arguments: [program, "{wav}"])
        await #expect(throws: SpeechToTextError.command(.failed(program: program, exitCode: 3,
                                                                lastErrorLine: "error: model file not found"))) {
            try await recognizer.transcribe([0, 0])
        }
    }

    @Test func aProgramThatHangsIsStoppedAtTheTimeout() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let program = try SpeechFixtures.script("stt", in: folder, "sleep 30")
        let recognizer = try CommandRecognizer(arguments: [program, "{wav}"], timeout: .milliseconds(300))
        let started = ContinuousClock.now
        await #expect(throws: SpeechToTextError.command(.timedOut(program: program, seconds: 0.3))) {
            try await recognizer.transcribe([0, 0])
        }
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test func cancellingTheCallerStopsTheProgram() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let program = try SpeechFixtures.script("stt", in: folder, "sleep 30")
        let recognizer = try CommandRecognizer(arguments: [program, "{wav}"])
        let started = ContinuousClock.now
        let task = Task { try await recognizer.transcribe([0, 0]) }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        await #expect(throws: SpeechToTextError.command(.cancelled(program: program))) { try await task.value }
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test func theArgumentListMustNameAProgramAndTakeTheWAV() {
        #expect(throws: SpeechToTextError.command(.emptyCommand)) { try CommandRecognizer(arguments: []) }
        #expect(throws: SpeechToTextError.commandWithoutPlaceholder(arguments: ["whisper-cli", "-f", "x.wav"],
                                                                    placeholder: "{wav}")) {
            try CommandRecognizer(arguments: ["whisper-cli", "-f", "x.wav"])
        }
    }
}
