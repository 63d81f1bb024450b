import Foundation
import HotwordAudio
import HotwordTestSupport
import HotwordTranscripts
import HotwordWhisper
import Testing

/// Whisper tiny.en in Swift on real recordings, scored as `hotword transcribe --reference` scores.
@Suite(.enabled(if: WhisperFixtures.modelFolder != nil, WhisperFixtures.skipReason))
struct WhisperTranscriptionTests {
    /// The first files of a reference list, transcribed and scored together.
    private func wordErrors(list: String, first count: Int, window: WhisperModel.AudioWindow) throws -> WordErrors {
        let model = try #require(WhisperFixtures.model).get()
        let listURL = TestPaths.sharedData.appendingPathComponent(list)
        let references = try ReferenceTranscripts.parse(try String(contentsOf: listURL, encoding: .utf8), list: list).prefix(count)
        var total = WordErrors()
        for reference in references {
            let audio = try AudioFileReader.read(listURL.deletingLastPathComponent().appendingPathComponent(reference.file), sampleRate: 16_000)
            let heard = model.transcribe(audio.samples, window: window).text
            let errors = WordErrors(reference: TranscriptWords.normalized(reference.text), hypothesis: TranscriptWords.normalized(heard))
            print("\(reference.file)\t\(errors.errors)\t\(heard)")
            total = total + errors
        }
        return total
    }

    /// The first 8 prompts (53 words): 2 errors here, as faster-whisper without timestamps makes
    /// (docs/stt.md, "Whisper in Swift"); a broken encoder or decoder makes far more.
    @Test func hearsTheTelephonePrompts() throws {
        let errors = try wordErrors(list: "speech/asterisk_en/transcripts.tsv", first: 8, window: .full)
        #expect(try #require(errors.rate) <= 0.10, "\(errors)")
    }

    /// The encoder's rows shared out among threads: the same tokens as on one.
    @Test func threadsHearAsOneDoes() throws {
        let model = try #require(WhisperFixtures.model).get()
        let list = TestPaths.sharedData.appendingPathComponent("speech/asterisk_en/transcripts.tsv")
        let references = try ReferenceTranscripts.parse(try String(contentsOf: list, encoding: .utf8), list: list.path).prefix(2)
        for reference in references {
            let audio = try AudioFileReader.read(list.deletingLastPathComponent().appendingPathComponent(reference.file), sampleRate: 16_000)
            let alone = model.transcribe(audio.samples, threads: 1)
            #expect(!alone.tokens.isEmpty)
            for threads in [2, 3] {
                #expect(model.transcribe(audio.samples, threads: threads) == alone, "\(reference.file) on \(threads) threads")
            }
        }
    }
}
