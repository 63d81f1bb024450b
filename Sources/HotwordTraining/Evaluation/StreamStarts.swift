import Foundation
import HotwordCore

/// Keyword clips heard each as the very start of a stream: a new user's `hotword record` then
/// `hotword detect`, a Wyoming client's `audio-start` right before the word, `hotword run` just
/// started. Each clip, as it was recorded, starts `lead` seconds into its stream (silence before
/// it: 0 is the clip alone, as `hotword detect clip.wav` hears it), ends with a second of silence,
/// has its speech at the evaluation's speech level and the noise at its SNR over all of it from
/// the first sample, and is heard by a detector that has heard nothing before it.
public struct StreamStarts: Sendable {
    /// Seconds from the start of each stream to the start of its clip.
    public let lead: Double
    public let streams: [[Float]]
    /// The clip each stream was made from.
    public let names: [String]

    /// Silence after each keyword, so that a word at the end of its clip is heard to its end.
    static let tailSeconds = 1.0

    /// With several `passes`, every clip is heard that many times, each in fresh noise.
    public init(positives: [[Float]], names: [String], lead: Double, noise: [[Float]], snr: Float?, seed: UInt64, passes: Int = 1,
                sampleRate: Int = AudioFormat.sampleRate) {
        precondition(lead >= 0, "lead must be ≥ 0")
        let silence = [Float](repeating: 0, count: Int(lead * Double(sampleRate)))
        let tail = [Float](repeating: 0, count: Int(Self.tailSeconds * Double(sampleRate)))
        let bases = positives.map { silence + EvaluationStream.levelled($0) + tail }
        let unitNoise = noise.map(EvaluationStream.atUnitLevel)
        var rng = SeededRandom(seed: seed)
        var streams: [[Float]] = []
        for _ in 0..<max(passes, 1) {
            for base in bases {
                var stream = base
                if let snr { EvaluationStream.addNoise(unitNoise, to: &stream, from: 0, snr: snr, using: &rng) }
                streams.append(stream)
            }
        }
        self.lead = lead
        self.streams = streams
        self.names = Array(repeating: names, count: max(passes, 1)).flatMap { $0 }
    }

    /// The streams (indices) in which `model`'s first keyword is not detected with `settings`,
    /// each heard from a fresh start; by the network alone, without a second stage.
    public func missed(by model: KeywordModel, settings: KeywordSettings = KeywordSettings(),
                       threads: Int = ProcessInfo.processInfo.activeProcessorCount) throws(DetectorError) -> [Int] {
        let keyword = model.keywords[0]
        _ = try Detector(models: [model], settings: [keyword: settings])  // validates once, so the threads below cannot fail
        let perThread = (streams.count + threads - 1) / max(threads, 1)
        let missed = ParallelFor.map(threads, threads: threads) { part -> [Int] in
            let detector = try! Detector(models: [model], settings: [keyword: settings])
            let range = min(part * perThread, streams.count)..<min((part + 1) * perThread, streams.count)
            return range.filter { index in
                detector.reset()
                return !detector.process(streams[index]).contains { $0.keyword == keyword }
            }
        }
        return missed.flatMap { $0 }
    }
}
