import CBLAS
import Foundation

/// What Whisper heard in one utterance.
public struct WhisperTranscript: Sendable, Equatable {
    public var text: String
    /// The text tokens decoded, without the prompt and the end of text.
    public var tokens: [Int]
}

/// A Whisper model loaded from a CTranslate2 folder (`model.bin`, `vocabulary.txt`,
/// `config.json`, as faster-whisper reads it), English-only models such as tiny.en: greedy
/// decoding without timestamps. Immutable once loaded, so it may be shared between threads;
/// each `transcribe` allocates its own buffers.
public struct WhisperModel: Sendable {
    /// How much audio the encoder sees.
    public enum AudioWindow: Sendable, Equatable {
        /// The 30 s Whisper was trained on, the utterance's features padded with zeros (as
        /// faster-whisper does): costs the same for every utterance.
        case full
        /// Only the utterance's frames and `paddingSeconds` of zero features after them (as
        /// whisper.cpp's --audio-ctx): cost grows with the utterance.
        case utterance(paddingSeconds: Double)
    }

    public let folder: String
    public let tokenizer: WhisperTokenizer
    public let logMel: WhisperLogMel
    let encoder: WhisperEncoder
    let decoder: WhisperDecoder
    /// Never sampled (config.json's suppress_ids).
    let suppressed: [Int]
    /// Not sampled first (config.json's suppress_ids_begin: a blank, the end of text).
    let suppressedFirst: [Int]

    /// Loads the three files of `folder`, checking that they are a Whisper model and fit together.
    public init(folder: String) throws(WhisperModelError) {
        self.folder = folder
        let file = try CTranslate2ModelFile(path: "\(folder)/model.bin")
        guard file.specName == "WhisperSpec" else { throw .wrongSpec(path: file.path, found: file.specName, expected: "WhisperSpec") }
        let dimensions = try WhisperDimensions(file)
        // Whisper's own test: multilingual models have 51 865 tokens or more, and need a language token.
        guard dimensions.vocabulary < 51_865 else {
            throw .invalid(path: file.path, variable: "decoder/embeddings/weight", found: "\(dimensions.vocabulary) tokens (a multilingual model)",
                           expected: "an English-only model such as tiny.en (fewer than 51865 tokens)")
        }
        encoder = try WhisperEncoder(file, dimensions)
        decoder = try WhisperDecoder(file, dimensions)
        logMel = WhisperLogMel(bands: dimensions.bands)
        let vocabularyPath = "\(folder)/vocabulary.txt"
        tokenizer = try WhisperTokenizer(contentsOf: vocabularyPath)
        guard tokenizer.tokens.count == dimensions.vocabulary else {
            throw .invalidCompanion(path: vocabularyPath, key: "its lines",
                                    expected: "\(dimensions.vocabulary) tokens, one a line, as model.bin has embeddings (found \(tokenizer.tokens.count))")
        }
        (suppressed, suppressedFirst) = try Self.suppression(in: "\(folder)/config.json")
    }

    private struct Configuration: Decodable {
        let suppress_ids: [Int]
        let suppress_ids_begin: [Int]
    }

    private static func suppression(in path: String) throws(WhisperModelError) -> ([Int], [Int]) {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .fileUnreadable(path: path, reason: (error as NSError).localizedDescription)
        }
        do {
            let configuration = try JSONDecoder().decode(Configuration.self, from: data)
            return (configuration.suppress_ids, configuration.suppress_ids_begin)
        } catch {
            throw .invalidCompanion(path: path, key: "suppress_ids, suppress_ids_begin", expected: "a JSON object with both as arrays of token ids")
        }
    }

    /// At most this many tokens per 30 s window (Whisper's own limit: half its text positions).
    var maximumTokens: Int { decoder.dimensions.textPositions / 2 }

    /// The text of `samples` (16 kHz mono in [-1, 1]); audio longer than 30 s is heard in
    /// consecutive 30 s windows, their texts joined. The encoder's work and the decoder's logits
    /// are shared out among `threads`; the rest of each decoder step runs on the caller's.
    public func transcribe(_ samples: [Float], window: AudioWindow = .full, threads: Int = 1) -> WhisperTranscript {
        _ = Self.singleThreadedBLAS
        let (mel, frames) = logMel.features(samples)
        // faster-whisper hears one frame less than its features have (`content_frames`).
        let content = max(0, frames - 1)
        let windowFrames = 2 * decoder.dimensions.audioPositions
        var texts: [String] = [], tokens: [Int] = []
        for start in stride(from: 0, to: content, by: windowFrames) {
            let heard = decode(mel, frames: frames, from: start, count: min(windowFrames, content - start), window: window, threads: threads)
            tokens += heard
            texts.append(tokenizer.text(of: heard))
        }
        return WhisperTranscript(text: texts.filter { !$0.isEmpty }.joined(separator: " "), tokens: tokens)
    }

    /// The encoder's input for `count` frames from `start` of `mel` (band-major, `frames` a
    /// band), zero-padded as `window` says: bands × the frames returned.
    private func encoderInput(_ mel: [Float], frames: Int, from start: Int, count: Int, window: AudioWindow) -> (values: [Float], frames: Int) {
        let bands = logMel.bands, limit = 2 * decoder.dimensions.audioPositions
        var encoded: Int
        switch window {
        case .full: encoded = limit
        case .utterance(let padding): encoded = min(limit, count + Int((padding * Double(WhisperLogMel.sampleRate / WhisperLogMel.hop)).rounded(.up)))
        }
        encoded += encoded % 2  // the second convolution halves it
        var input = [Float](repeating: 0, count: bands * encoded)
        for band in 0..<bands {
            for t in 0..<count { input[band * encoded + t] = mel[band * frames + start + t] }
        }
        return (input, encoded)
    }

    /// Threads are ours to share out (`transcribe`): OpenBLAS, splitting each product again across
    /// its own, would spin against them.
    private static let singleThreadedBLAS: Void = hotword_blas_single_threaded()

    private func decode(_ mel: [Float], frames: Int, from start: Int, count: Int, window: AudioWindow, threads: Int) -> [Int] {
        let (input, encoded) = encoderInput(mel, frames: frames, from: start, count: count, window: window)
        let audio = encoder.encode(mel: input, frames: encoded, threads: threads)
        // Only text tokens and the end of text are ever sampled: no logits for the special tokens after it.
        let session = WhisperDecoder.Session(decoder, audio: audio, scoredTokens: tokenizer.endOfText + 1, threads: threads)
        for token in [tokenizer.startOfTranscript, tokenizer.noTimestamps] { session.step(token) }
        var tokens: [Int] = []
        while tokens.count < maximumTokens, !session.isFull {
            let next = bestToken(&session.logits, first: tokens.isEmpty)
            if next == tokenizer.endOfText { break }
            tokens.append(next)
            if let repeats = Self.repeatedTail(tokens) {
                tokens.removeLast(repeats)
                break
            }
            session.step(next)
        }
        return tokens
    }

    /// The most likely token that is not suppressed (the suppressed get −∞ in `logits`).
    private func bestToken(_ logits: inout [Float], first: Bool) -> Int {
        for token in suppressed + (first ? suppressedFirst : []) where logits.indices.contains(token) {
            logits[token] = -.infinity
        }
        var best = tokenizer.endOfText, bestLogit = -Float.infinity
        for (token, logit) in logits.enumerated() where logit > bestLogit { (best, bestLogit) = (token, logit) }
        return best
    }

    /// A greedy decoder can fall into a loop ("the the the …", a phrase over and over) until the
    /// token limit. When the tokens end with the same run of tokens four times over, the count of
    /// tokens to drop to keep it once; nil otherwise.
    static func repeatedTail(_ tokens: [Int], times: Int = 4) -> Int? {
        for length in 1...max(1, tokens.count / times) where tokens.count >= length * times {
            let tail = tokens.suffix(length)
            if (1..<times).allSatisfy({ copy in tokens.dropLast(copy * length).suffix(length).elementsEqual(tail) }) {
                return (times - 1) * length
            }
        }
        return nil
    }
}
