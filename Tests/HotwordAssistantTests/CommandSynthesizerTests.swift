import Foundation
import HotwordAssistant
import HotwordTestSupport
import Testing

/// CommandSynthesizer running espeak-ng's own command-line program and test scripts.
@Suite struct CommandSynthesizerTests {
    @Test func readsTheWAVTheProgramWritesToTheOutputFile() async throws {
        let synthesizer = try CommandSynthesizer(arguments: ["espeak-ng", "--stdin", "-v", "en-us", "-w", "{wav}"])
        let audio = try await synthesizer.synthesize("what is the weather in berlin")
        #expect(audio.sampleRate == 22_050)
        #expect((1.0...4.0).contains(audio.duration), "duration \(audio.duration) s")
        #expect(SpeechFixtures.rms(audio.samples) > 0.02)
        // The same engine in-process speaks for as long (the program adds a pause at the end).
        let embedded = try await EspeakSynthesizer().synthesize("what is the weather in berlin")
        let (spoken, spokenEmbedded) = (SpeechFixtures.spokenDuration(audio), SpeechFixtures.spokenDuration(embedded))
        #expect(abs(spoken - spokenEmbedded) < 0.05 * spokenEmbedded, "\(spoken) s by the program, \(spokenEmbedded) s embedded")
    }

    @Test func readsTheWAVTheProgramWritesToStandardOutput() async throws {
        let synthesizer = try CommandSynthesizer(arguments: ["espeak-ng", "--stdin", "--stdout"])
        let audio = try await synthesizer.synthesize("tell me a joke")
        #expect(audio.sampleRate == 22_050)
        #expect(audio.duration > 0.5)
        #expect(SpeechFixtures.rms(audio.samples) > 0.02)
    }

    @Test func theTextReachesTheProgramIntact() async throws {
        let synthesizer = try CommandSynthesizer(arguments: ["espeak-ng", "--stdin", "-v", "en-us+klatt4", "-w", "{wav}"])
        let audio = try await synthesizer.synthesize("what is your name")
        let samples = try SpeechFixtures.forRecognizer(audio)
        let text = try await SpeechFixtures.pocketsphinx().transcribe(samples)
        #expect(transcript(text, contains: "name"), "heard \"\(text)\"")
    }

    @Test func outputThatIsNotAudioIsReported() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let program = try SpeechFixtures.script("tts", in: folder, "cat")  // echoes the text, not audio
        let error = await #expect(throws: TextToSpeechError.self) {
            try await CommandSynthesizer(arguments: [program]).synthesize("hello")
        }
        guard case .commandAudioUnreadable(let name, let source, _) = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(name == program && source == "its standard output")
    }

    @Test func aFailingProgramReportsItsLastErrorLine() async throws {
        let folder = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let program = try SpeechFixtures.script("tts", in: folder, "echo 'no voice model' >&2; exit 1")
        await #expect(throws: TextToSpeechError.command(.failed(program: program, exitCode: 1, lastErrorLine: "no voice model"))) {
            try await CommandSynthesizer(arguments: [program, "--output_file", "{wav}"]).synthesize("hello")
        }
    }

    @Test func aMissingProgramIsNamed() async throws {
        let error = await #expect(throws: TextToSpeechError.self) {
            try await CommandSynthesizer(arguments: ["hotword-no-such-synthesizer"]).synthesize("hello")
        }
        guard case .command(.programNotFound(let program, _)) = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(program == "hotword-no-such-synthesizer")
    }
}
