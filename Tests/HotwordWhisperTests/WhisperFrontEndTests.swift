import Foundation
@testable import HotwordWhisper
import Testing

@Suite struct WhisperFrontEndTests {
    /// faster-whisper's FeatureExtractor on a known signal (Fixtures/logmel-reference.tsv says
    /// which), written with 5 decimals.
    @Test func logMelMatchesFasterWhisper() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/logmel-reference.tsv")
        let rows = try String(contentsOf: fixture, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
        let reference = rows.map { $0.split(separator: "\t").map { Float($0)! } }
        let signal = (0..<4_000).map { n -> Float in
            let n = Double(n)
            return Float(0.5 * sin(2 * .pi * 440 * n / 16_000) + 0.25 * sin(2 * .pi * (300 + 0.5 * n) * n / 16_000)
                         + 0.1 * sin(2 * .pi * 5_000 * n / 16_000))
        }
        let (values, frames) = WhisperLogMel().features(signal)
        #expect(reference.count == 80 && frames == reference[0].count)
        var largest: Float = 0
        for band in 0..<80 {
            for frame in 0..<frames { largest = max(largest, abs(values[band * frames + frame] - reference[band][frame])) }
        }
        #expect(largest < 2e-4, "largest difference \(largest)")
    }

    @Test func tooLittleAudioHasNoFeatures() {
        #expect(WhisperLogMel().features([Float](repeating: 0.1, count: 159)).frames == 0)
        #expect(WhisperLogMel().features([Float](repeating: 0, count: 160)).frames == 2)
    }

    /// GPT-2 byte-level tokens: "Ġ" is a space, "Ã©" the two UTF-8 bytes of "é".
    @Test func tokensBecomeTextByteByByte() throws {
        var tokens = ["ĠCafÃ©", ",", "ĠnaÃ¯ve", "ĠâĢĶ", "Ġ5", "ĠÂ°", "C", "."]
        let specials = ["<|endoftext|>", "<|startoftranscript|>", "<|notimestamps|>"]
        tokens += specials
        let tokenizer = try WhisperTokenizer(tokens: tokens, path: "test")
        #expect(tokenizer.endOfText == 8 && tokenizer.startOfTranscript == 9 && tokenizer.noTimestamps == 10)
        #expect(tokenizer.text(of: Array(0..<8)) == "Café, naïve — 5 °C.")
        #expect(tokenizer.text(of: [9, 0, 8]) == "Café", "special tokens are not text")
        #expect(throws: WhisperModelError.invalidCompanion(path: "test", key: "<|notimestamps|>", expected: "a line holding the special token <|notimestamps|>")) {
            try WhisperTokenizer(tokens: Array(tokens.dropLast()), path: "test")
        }
    }

    /// Ids from the `tokenizers` package on the model's tokenizer.json.
    @Test(.enabled(if: WhisperFixtures.modelFolder != nil, WhisperFixtures.skipReason))
    func theVocabularyDecodesKnownIds() throws {
        let tokenizer = try #require(WhisperFixtures.model).get().tokenizer
        #expect(tokenizer.text(of: [1867, 318, 262, 3139, 286, 4881, 30]) == "What is the capital of France?")
        #expect(tokenizer.text(of: [42151, 11, 41492, 851, 642, 22074, 34, 13]) == "Café, naïve — 5 °C.")
    }

    @Test func aLoopIsCutToOneCopy() {
        #expect(WhisperModel.repeatedTail([1, 2, 3]) == nil)
        #expect(WhisperModel.repeatedTail([5, 7, 7, 7]) == nil)
        #expect(WhisperModel.repeatedTail([5, 7, 7, 7, 7]) == 3)
        #expect(WhisperModel.repeatedTail([9, 1, 2, 1, 2, 1, 2, 1, 2]) == 6)
        #expect(WhisperModel.repeatedTail([1, 2, 3, 1, 2, 3, 1, 2, 3]) == nil)
    }
}
