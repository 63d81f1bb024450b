import Foundation
import HotwordAssistant
import Testing

/// EspeakSynthesizer through the real libespeak-ng.
@Suite struct EspeakSynthesizerTests {
    @Test func speaksASentenceAsAudibleSpeechOfPlausibleLength() async throws {
        let audio = try await EspeakSynthesizer().synthesize("what is the weather in berlin")
        #expect(audio.sampleRate == 22_050)
        #expect((1.0...4.0).contains(audio.duration), "duration \(audio.duration) s")
        #expect(SpeechFixtures.rms(audio.samples) > 0.02)
        #expect(audio.samples.allSatisfy { (-1...1).contains($0) })
    }

    @Test func slowerRateGivesLongerSpeech() async throws {
        let text = "tell me a joke about computers"
        let slow = try await EspeakSynthesizer(EspeakConfiguration(rate: 100)).synthesize(text)
        let fast = try await EspeakSynthesizer(EspeakConfiguration(rate: 300)).synthesize(text)
        #expect(slow.duration > fast.duration * 2, "slow \(slow.duration) s, fast \(fast.duration) s")
    }

    @Test func speaksOtherLanguages() async throws {
        let audio = try await EspeakSynthesizer(EspeakConfiguration(voice: "de")).synthesize("Wie wird das Wetter morgen in Berlin?")
        #expect(audio.duration > 1)
        #expect(SpeechFixtures.rms(audio.samples) > 0.02)
    }

    @Test func emptyTextGivesNoSpeech() async throws {
        let audio = try await EspeakSynthesizer().synthesize("")
        #expect(SpeechFixtures.rms(audio.samples) < 0.001)
    }

    /// espeak-ng is not bit-exact from call to call (its state carries over; a short phrase's
    /// length was seen to vary by 5.4 %), so "the same" means the same length within 10 % and
    /// level; interleaved engine use would garble both.
    @Test func concurrentCallersWithDifferentVoicesGetWhatTheyWouldGetAlone() async throws {
        let requests = [("en-us", "what time is it"), ("de", "wie spät ist es heute abend"),
                        ("en-us+klatt4", "what is the weather like today"), ("fr", "quelle heure est-il")]
        var alone: [SynthesizedAudio] = []
        for (voice, text) in requests {
            alone.append(try await EspeakSynthesizer(EspeakConfiguration(voice: voice)).synthesize(text))
        }
        let together = try await withThrowingTaskGroup(of: (Int, SynthesizedAudio).self) { group in
            for (index, (voice, text)) in requests.enumerated() {
                group.addTask { (index, try await EspeakSynthesizer(EspeakConfiguration(voice: voice)).synthesize(text)) }
            }
            var results = [SynthesizedAudio?](repeating: nil, count: requests.count)
            for try await (index, audio) in group { results[index] = audio }
            return results.compactMap { $0 }
        }
        try #require(together.count == requests.count)
        for index in requests.indices {
            let (expected, actual) = (alone[index], together[index])
            #expect(abs(actual.duration - expected.duration) < 0.1 * expected.duration,
                    "\(requests[index]): \(actual.duration) s together, \(expected.duration) s alone")
            let (expectedLevel, actualLevel) = (SpeechFixtures.rms(expected.samples), SpeechFixtures.rms(actual.samples))
            #expect(abs(actualLevel - expectedLevel) < 0.1 * expectedLevel,
                    "\(requests[index]): RMS \(actualLevel) together, \(expectedLevel) alone")
        }
    }

    @Test func unknownVoiceIsNamedAndTheEngineKeepsWorking() async throws {
        await #expect(throws: TextToSpeechError.espeakVoiceNotFound(voice: "xx-no-such-voice")) {
            try await EspeakSynthesizer(EspeakConfiguration(voice: "xx-no-such-voice")).synthesize("hello")
        }
        let audio = try await EspeakSynthesizer().synthesize("hello")
        #expect(SpeechFixtures.rms(audio.samples) > 0.02)
    }

    @Test func settingsOutsideTheirRangeAreRejected() {
        #expect(throws: TextToSpeechError.invalidSetting(backend: "espeak-ng", name: "rate", value: "20",
                                                         expected: "80–450 words per minute")) {
            try EspeakSynthesizer(EspeakConfiguration(rate: 20))
        }
        #expect(throws: TextToSpeechError.invalidSetting(backend: "espeak-ng", name: "pitch", value: "101", expected: "0–100")) {
            try EspeakSynthesizer(EspeakConfiguration(pitch: 101))
        }
    }
}
