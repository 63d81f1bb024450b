import Foundation
@testable import HotwordAssistant
import HotwordAudio
import HotwordCore
import HotwordTestSupport
import Testing

/// The question's recording starts where the wake word ends, not before: a real person saying
/// "computer" (a recording from ../shared), the shipped `computer` model, and a question after
/// it, heard by `Hearing` from arrays. The detection is at the keyword's end (on the shared
/// "computer" clips between 0.05 s before and 0.16 s after the end of their sound, 27 of 30
/// detected); recording from 0.3 s before it put the keyword's tail into the question, which
/// pocketsphinx then heard as "the".
@Suite("The question starts after the wake word")
struct QuestionStartTests {
    static let rate = Double(AudioFormat.sampleRate)
    /// Detected 1.84 s in; its sound ends at 1.82 s.
    static let clip = TestPaths.sharedData.appendingPathComponent("keywords/computer/0fdd491c-aba9-4ab3-8621-63f97240ec76.flac")

    /// Where the sound of `samples` ends: after the last 10 ms frame 15 dB over the quietest
    /// tenth of the frames (the room).
    static func endOfSound(_ samples: [Float]) -> Int {
        let frame = 160
        let levels = stride(from: 0, to: samples.count - frame, by: frame).map { start in
            10 * log10(samples[start..<(start + frame)].reduce(0) { $0 + $1 * $1 } / Float(frame) + 1e-10)
        }
        let room = levels.sorted()[levels.count / 10]
        return ((levels.lastIndex { $0 > max(room + 15, -50) } ?? 0) + 1) * frame
    }

    /// Hears `audio` with the `computer` model; the one utterance and where it starts in `audio`.
    static func question(in audio: [Float]) throws -> (utterance: Utterance, start: Int, end: Int) {
        let rig = try HearingTests.Rig()
        var configuration = AssistantConfiguration(clientVersion: "test")
        configuration.wake.models = ["computer"]
        rig.hearing = try Hearing(models: try ListenerSettings.models(of: configuration), settings: Hearing.Settings(),
                                  audio: rig.ring, ownSound: rig.ownOutput)
        rig.hear(audio)
        try #require(rig.wakes.map(\.keyword) == ["computer"] && rig.utterances.count == 1, "\(rig.events)")
        let (utterance, wake) = rig.utterances[0]
        let end = Int(wake.positions.upperBound)
        return (utterance, end - utterance.samples.count, end)
    }

    /// The question said in the same breath: speech runs on from the keyword's sound.
    @Test func theRecordingHoldsTheWholeQuestionAndNothingOfTheWakeWord() async throws {
        let clip = try AudioFileReader.read(Self.clip, sampleRate: AudioFormat.sampleRate).samples
        let keywordEnd = Self.endOfSound(clip)
        #expect(abs(Double(keywordEnd) / Self.rate - 1.82) < 0.02, "the clip's sound ends at \(Double(keywordEnd) / Self.rate) s")
        let asked = try await SpeechFixtures.speech("what is the capital of france")
        let lead = [Float](repeating: 0, count: Int(Self.rate))
        let said = Array(clip[..<keywordEnd])
        let audio = lead + said + asked + [Float](repeating: 0, count: Int(Self.rate))
        let questionStart = lead.count + said.count
        let questionEnd = questionStart + Self.endOfSound(asked)

        let (utterance, start, end) = try Self.question(in: audio)
        // Within two steps of the network's outputs (60 ms) of the keyword's end: too short for a
        // word. (A lower default fires a step earlier: computer's 0.9820 at 36 ms before the end.)
        #expect(start + 2 * Int(Self.outputStep * Self.rate) >= lead.count + keywordEnd,
                "the recording starts \(Double(lead.count + keywordEnd - start) / Self.rate) s before the keyword's end")
        #expect(start <= questionStart && end >= questionEnd,
                "\(Double(start) / Self.rate)–\(Double(end) / Self.rate) s recorded, the question is \(Double(questionStart) / Self.rate)–\(Double(questionEnd) / Self.rate) s")
        #expect(utterance.end == .trailingSilence)
    }

    static let outputStep = 0.03
}
