import Foundation
import HotwordSpotting
import HotwordCore

/// One clip to make: text, voice and every random choice, fixed before anything is rendered.
struct ClipJob: Sendable, Hashable {
    var kind: ClipKind
    var text: String
    var voice: Voice
    /// 1, 2, ... among the clips of this kind, text and voice.
    var rendition: Int
    var style: SpeakingStyle
    var levelDB: Double
    var leadSeconds: Double
    var tailSeconds: Double
    var rule: String?
    /// `<engine>-<voice>_<tag>-r<rate>-p<pitch>.wav`: everything before the last '_' names the
    /// voice, which `DataSplit` takes as the speaker, so one voice never lands in two splits.
    var fileName: String
}

/// Decides which clips are made. Every voice speaks the phrase (`SynthesisOptions.renditions`
/// times). Negatives are spoken by the voices of the positives that were kept, drawn from that
/// list with its repetitions, so engines and voices have the same shares among negatives as
/// among usable positives and a model cannot tell the classes apart by voice. Each clip's
/// random settings come from a generator seeded by the seed and the clip's identity (kind,
/// voice, text, rendition), so a clip does not change when others are added or left out.
enum SynthesisPlan {
    private typealias Request = (text: String, voice: Voice, rule: String?, tag: String)

    /// Every voice's renditions of the phrase (at most `maximumClips`).
    static func positives(options: SynthesisOptions, voices: [Voice], phrase: String) -> [ClipJob] {
        let slots = voices.sorted().flatMap { voice in Array(repeating: voice, count: options.renditions(of: voice)) }
        return numbered(.positive, slots.map { (phrase, $0, nil, "") }, options: options)
    }

    /// About as many confusable clips as `voicePool` has entries (spread evenly over the
    /// confusables), as many again of the sound-alike words, and `sentenceRenditions` clips per
    /// sentence, voices drawn from `voicePool`.
    static func negatives(options: SynthesisOptions, voicePool: [Voice], confusables: [Confusable],
                          soundAlikes: [Confusable] = [], sentences: [String]) -> [ClipJob] {
        guard !voicePool.isEmpty else { return [] }
        let sentenceVoices = shuffled(voicePool, seed: options.seed, stream: "sentence-voices")
        let sentenceRequests: [Request] = sentences.enumerated().flatMap { index, sentence in
            (0..<options.sentenceRenditions).map { rendition in
                (sentence, sentenceVoices[(index * options.sentenceRenditions + rendition) % voicePool.count],
                 nil, String(format: "s%03d-", index + 1))
            }
        }
        return numbered(.confusable, spread(confusables, over: voicePool, stream: "confusable-voices", options: options), options: options)
            + numbered(.speech, sentenceRequests, options: options)
            + numbered(.soundAlike, spread(soundAlikes, over: voicePool, stream: "sound-alike-voices", options: options), options: options)
    }

    /// About one request per entry of `voicePool`, spread evenly over the texts.
    private static func spread(_ texts: [Confusable], over voicePool: [Voice], stream: String,
                               options: SynthesisOptions) -> [Request] {
        guard !texts.isEmpty else { return [] }
        let perText = (voicePool.count + texts.count - 1) / texts.count
        let voices = shuffled(voicePool, seed: options.seed, stream: stream)
        return texts.enumerated().flatMap { index, text in
            (0..<perText).map { rendition in
                (text.text, voices[(index * perText + rendition) % voicePool.count], text.rule, slug(text.text) + "-")
            }
        }
    }

    /// Jobs for the requests (renditions counted per text and voice), at most `maximumClips`.
    private static func numbered(_ kind: ClipKind, _ requests: [Request], options: SynthesisOptions) -> [ClipJob] {
        var renditions: [String: Int] = [:]
        let jobs = requests.map { request -> ClipJob in
            let key = "\(request.text)|\(request.voice.speakerID)"
            renditions[key, default: 0] += 1
            return job(kind: kind, text: request.text, voice: request.voice, rendition: renditions[key]!,
                       rule: request.rule, tag: request.tag, options: options)
        }
        return capped(jobs, to: options.maximumClips, seed: options.seed, stream: kind.rawValue)
    }

    private static func job(kind: ClipKind, text: String, voice: Voice, rendition: Int, rule: String?, tag: String,
                            options: SynthesisOptions) -> ClipJob {
        var random = SeededRandom.derived(
            seed: options.seed, stream: StableHash.of("\(kind.rawValue)|\(voice.speakerID)|\(text)|\(rendition)"))
        func draw(_ range: ClosedRange<Double>) -> Double {
            range.lowerBound + Double(random.uniform()) * (range.upperBound - range.lowerBound)
        }
        let rate = rounded(draw(options.rateRange), 2)
        let pitch = rounded(exp(draw(log(options.pitchRange.lowerBound)...log(options.pitchRange.upperBound))), 2)
        let level = rounded(draw(options.levelRange), 1)
        let lead = rounded(draw(options.silenceRange), 2), tail = rounded(draw(options.silenceRange), 2)
        let speaker = String(voice.speakerID.map { $0.isLetter || $0.isNumber || "+.-_".contains($0) ? $0 : "-" })
        let name = "\(speaker)_\(tag)\(rendition)-r\(String(format: "%.2f", rate))-p\(String(format: "%.2f", pitch)).wav"
        return ClipJob(kind: kind, text: text, voice: voice, rendition: rendition,
                       style: SpeakingStyle(rate: rate, pitch: pitch), levelDB: level,
                       leadSeconds: lead, tailSeconds: tail, rule: rule, fileName: name)
    }

    /// At most `limit` jobs, shared among engines in proportion to their jobs (largest
    /// remainder, at least one each while the limit allows), drawn at random within each engine
    /// and returned in plan order.
    static func capped(_ jobs: [ClipJob], to limit: Int?, seed: UInt64, stream: String) -> [ClipJob] {
        guard let limit, limit < jobs.count else { return jobs }
        let engines = Dictionary(grouping: jobs.indices, by: { jobs[$0].voice.engine })
        let order = engines.keys.sorted()
        let floor = limit >= order.count ? 1 : 0
        var quota = Dictionary(uniqueKeysWithValues: order.map { ($0, floor) })
        let rest = limit - floor * order.count, restPool = jobs.count - floor * order.count
        let exact = order.map { Double(rest) * Double(engines[$0]!.count - floor) / Double(restPool) }
        for (engine, share) in zip(order, exact) { quota[engine]! += Int(share) }
        let byRemainder = zip(order, exact).sorted { lhs, rhs in
            let left = lhs.1 - lhs.1.rounded(.down), right = rhs.1 - rhs.1.rounded(.down)
            return left != right ? left > right : lhs.0 < rhs.0
        }
        for (engine, _) in byRemainder.prefix(limit - quota.values.reduce(0, +)) { quota[engine]! += 1 }
        var chosen: [Int] = []
        for engine in order {
            let pool = shuffled(engines[engine]!, seed: seed, stream: "\(stream)|\(engine.rawValue)")
            chosen += pool.prefix(min(quota[engine]!, pool.count))
        }
        return chosen.sorted().map { jobs[$0] }
    }

    static func shuffled<T>(_ items: [T], seed: UInt64, stream: String) -> [T] {
        var random = SeededRandom.derived(seed: seed, stream: StableHash.of(stream))
        var items = items
        // Fisher–Yates with our generator: `shuffle(using:)` may change its algorithm between Swift versions.
        for index in stride(from: items.count - 1, to: 0, by: -1) {
            items.swapAt(index, Int(random.next() % UInt64(index + 1)))
        }
        return items
    }

    /// A text as a file-name word: lower-case letters and digits joined by '-', at most 32 characters.
    static func slug(_ text: String) -> String {
        let words = Phrase.normalised(text).replacingOccurrences(of: "'", with: "").split(separator: " ")
        let ascii = words.map { String($0.unicodeScalars.filter { $0.isASCII && CharacterSet.alphanumerics.contains($0) }.map(Character.init)) }
        return String(ascii.filter { !$0.isEmpty }.joined(separator: "-").prefix(32))
    }

    static func rounded(_ value: Double, _ decimals: Int) -> Double {
        let scale = pow(10, Double(decimals))
        return (value * scale).rounded() / scale
    }
}
