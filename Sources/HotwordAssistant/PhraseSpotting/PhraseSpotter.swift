import CPocketSphinx
import Foundation
import HotwordCore
import HotwordSpotting
import Logging

/// Does a window of audio hold the phrase? pocketsphinx's keyword spotting through
/// libpocketsphinx, by `SpottingRule` (pronunciation, threshold and least duration per phone).
/// The second stage after a detection — a few seconds of audio around each candidate
/// (`CheckedWindow`), not a stream — wherever it runs: `hotword run`, `serve` and `detect`, and
/// `eval` and `tune`, which measure and tune with this very spotter.
///
/// The decoder is made once per spotter (the phrase's pronunciations are its whole dictionary),
/// and every window is decoded afresh, as a fresh `pocketsphinx_batch` process decodes its first
/// clip: nothing heard before changes the verdict.
///
/// Threads: `hears` and `accepts` block their caller until pocketsphinx has decoded (tens of
/// milliseconds a window); all pocketsphinx work runs on its one serial queue, shared with the
/// speech recogniser, so any thread may call them, concurrently too — except that queue itself
/// and Swift's cooperative pool (an async caller should hop to a thread of its own first). A
/// spotter made with several decoders (`parallelDecoders`, for evaluation) decodes a batch on
/// that many threads while it holds the queue.
public final class PhraseSpotter: DetectionCheck, @unchecked Sendable {
    // @unchecked: `decoders` are only touched on the pocketsphinx queue (or by `accepts`, holding it).
    /// The phrase as given.
    public let phrase: String
    public let rule: SpottingRule
    private let decoders: [OpaquePointer]
    private static let logger = Logger(label: "hotword.spotter")

    /// Loads pocketsphinx's acoustic model (`configuration.acousticModel`; its language model is
    /// not used) for spotting `phrase`, pronounced from `configuration.dictionary` and espeak-ng
    /// (found in `searchPath`, PATH by default). Blocks while it loads (about a second).
    public init(phrase: String, configuration: PocketSphinxConfiguration = PocketSphinxConfiguration(),
                thresholdPerPhone: Double = SpottingRule.defaultThresholdPerPhone,
                minimumSecondsPerPhone: Double = SpottingRule.defaultMinimumSecondsPerPhone,
                parallelDecoders: Int = 1, searchPath: String? = nil) throws(PhraseSpotterError) {
        let required = [configuration.acousticModelFile, ("pronouncing dictionary", configuration.dictionary)]
        if let missing = PocketSphinxEngine.firstMissing(required) {
            throw .modelMissing(role: missing.role, path: missing.path)
        }
        let pronouncer = Pronouncer(dictionary: URL(fileURLWithPath: configuration.dictionary), searchPath: searchPath)
        do {
            rule = try SpottingRule(phrase: phrase, pronouncer: pronouncer, thresholdPerPhone: thresholdPerPhone,
                                    minimumSecondsPerPhone: minimumSecondsPerPhone)
        } catch {
            throw .pronunciation(phrase: phrase, error)
        }
        self.phrase = phrase

        // pocketsphinx reads the keyphrases and their pronunciations from files, once, while it
        // loads: they live only as long as that.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hotword-spotter-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let dictionary = folder.appendingPathComponent("phrase.dict"), keyphrases = folder.appendingPathComponent("phrase.kws")
        for (url, text) in [(folder, nil), (dictionary, rule.dictionaryFile), (keyphrases, rule.keyphraseFile)] {
            do {
                if let text {
                    try Data(text.utf8).write(to: url)
                } else {
                    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
                }
            } catch {
                throw .workFile(path: url.path, reason: error.localizedDescription)
            }
        }
        let arguments = ["-hmm", configuration.acousticModel, "-dict", dictionary.path, "-kws", keyphrases.path]
        let started = ContinuousClock.now
        let created = PocketSphinxEngine.queue.runBlocking { () -> Result<[SendableDecoder], PocketSphinxEngine.Failure> in
            var made: [SendableDecoder] = []
            do throws(PocketSphinxEngine.Failure) {
                for _ in 0..<max(1, parallelDecoders) {
                    made.append(SendableDecoder(pointer: try PocketSphinxEngine.createDecoder(arguments: arguments, logFile: configuration.logFile)))
                }
                return .success(made)
            } catch {
                made.forEach { _ = ps_free($0.pointer) }
                return .failure(error)
            }
        }
        switch created {
        case .success(let decoders): self.decoders = decoders.map { $0.pointer }
        case .failure(.logNotWritable(let path)): throw .logNotWritable(path: path)
        case .failure(.rejected(let arguments)): throw .initializationFailed(arguments: arguments)
        }
        Self.logger.debug("phrase spotter ready", metadata: [
            "phrase": "\(phrase)", "keyphrases": "\(rule.keyphraseFile.split(separator: "\n").count)",
            "seconds": "\((ContinuousClock.now - started) / .seconds(1))",
        ])
    }

    deinit {
        decoders.forEach(PocketSphinxEngine.release)
    }

    /// The second stages `models` need under `settings` (`KeywordModel.checkedPhrases`; the
    /// default threshold per phone where a model names none), as `run` and `serve` build them.
    public static func checks(for models: [KeywordModel], settings: [String: KeywordSettings],
                              configuration: PocketSphinxConfiguration = PocketSphinxConfiguration())
        throws(PhraseSpotterError) -> [String: PhraseSpotter] {
        try spotters(for: KeywordModel.checkedPhrases(of: models, settings: settings,
                                                      defaultThresholdPerPhone: SpottingRule.defaultThresholdPerPhone),
                     configuration: configuration)
    }

    /// A spotter for each keyword of `phrases` (keyword → threshold per phone), the phrase being
    /// the keyword itself.
    public static func spotters(for phrases: [String: Double], configuration: PocketSphinxConfiguration = PocketSphinxConfiguration())
        throws(PhraseSpotterError) -> [String: PhraseSpotter] {
        var spotters: [String: PhraseSpotter] = [:]
        for (keyword, threshold) in phrases.sorted(by: { $0.key < $1.key }) {
            spotters[keyword] = try PhraseSpotter(phrase: keyword, configuration: configuration, thresholdPerPhone: threshold)
        }
        return spotters
    }

    /// Whether pocketsphinx spots the phrase in `window` (16 kHz mono). Blocks until decoded.
    public func hears(_ window: [Float]) throws(PhraseSpotterError) -> Bool {
        guard !window.isEmpty else { return false }
        let copy = SpottingRule.decodedCopy(of: window)
        return try PocketSphinxEngine.queue.runBlocking { () throws(PhraseSpotterError) -> Bool in
            try self.decode(copy, with: self.decoders[0])
        }
    }

    /// `DetectionCheck`: `hears` for each window, the windows shared among the spotter's decoders.
    public func accepts(_ windows: [[Float]]) throws -> [Bool] {
        let copies = windows.map { $0.isEmpty ? [] : SpottingRule.decodedCopy(of: $0) }
        return try PocketSphinxEngine.queue.runBlocking { () throws(PhraseSpotterError) -> [Bool] in
            // The queue is held for the whole batch: no decoder is created or freed meanwhile (that
            // swaps pocketsphinx's process-wide log), so distinct decoders may run at once.
            var verdicts = [Result<Bool, PhraseSpotterError>](repeating: .success(false), count: copies.count)
            verdicts.withUnsafeMutableBufferPointer { buffer in
                let results = Lanes(buffer: buffer), lanes = decoders.count
                DispatchQueue.concurrentPerform(iterations: lanes) { lane in
                    // Each lane writes only its own indices.
                    for index in stride(from: lane, to: copies.count, by: lanes) where !copies[index].isEmpty {
                        results.buffer[index] = Result { () throws(PhraseSpotterError) in
                            try self.decode(copies[index], with: self.decoders[lane])
                        }
                    }
                }
            }
            return try verdicts.map { verdict throws(PhraseSpotterError) in try verdict.get() }
        }
    }

    /// The whole window in one call (`full_utt`), as `pocketsphinx_batch` decodes a clip. Runs on
    /// the pocketsphinx queue only (or in `accepts`, on one decoder per thread).
    private func decode(_ samples: [Int16], with decoder: OpaquePointer) throws(PhraseSpotterError) -> Bool {
        // A new stream resets the noise statistics, which otherwise carry over from the last window.
        ps_start_stream(decoder)
        let started = ps_start_utt(decoder)
        guard started >= 0 else { throw .decodingFailed(call: "ps_start_utt", code: started) }
        let processed = samples.withUnsafeBufferPointer { ps_process_raw(decoder, $0.baseAddress, $0.count, 0, 1) }
        let ended = ps_end_utt(decoder)
        guard processed >= 0 else { throw .decodingFailed(call: "ps_process_raw", code: processed) }
        guard ended >= 0 else { throw .decodingFailed(call: "ps_end_utt", code: ended) }
        var spottings: [SpottingRule.Spotting] = []
        var segment = ps_seg_iter(decoder)
        while let current = segment {
            var first: Int32 = 0, last: Int32 = 0
            ps_seg_frames(current, &first, &last)
            if let words = ps_seg_word(current), last >= first {
                spottings.append(.init(words: String(cString: words), frames: Int(first)...Int(last)))
            }
            segment = ps_seg_next(current)  // frees the iterator after the last
        }
        return rule.holdsPhrase(spottings)
    }
}

/// The verdicts `accepts` fills, one lane of indices per thread.
private struct Lanes: @unchecked Sendable {  // @unchecked: no two threads write the same index
    let buffer: UnsafeMutableBufferPointer<Result<Bool, PhraseSpotterError>>
}
