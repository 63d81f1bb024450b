import Foundation
import HotwordCore

/// A long test recording built from clips: keyword utterances spread evenly through negative
/// speech, with pauses, every clip at one speech level, and background noise at a fixed SNR
/// over the whole stream — how a wake word is heard in a room, measured by what it finds.
public struct EvaluationStream: Sendable {
    public var samples: [Float]
    /// Where each keyword utterance lies, in samples.
    public var keywordRanges: [Range<Int>]
    /// The clip each keyword range was made from, to say which ones a model missed.
    public var keywordNames: [String]
    /// Where each negative clip lies, and its name, to say which audio caused a false alarm.
    public var negativeClips: [(range: Range<Int>, name: String)]
    /// The source (corpus) of each negative clip, an index into `sourceNames`.
    public var negativeClipSources: [Int]
    /// The sources the negative audio came from, in the order given: speech corpora, then
    /// noise heard alone.
    public var sourceNames: [String]
    /// Samples of each source in the stream (its clips and the pauses after them), for false
    /// alarms per hour of each.
    public var sourceSamples: [Int]
    public let sampleRate: Int

    public var duration: Double { Double(samples.count) / Double(sampleRate) }
    /// Seconds without a keyword: where any detection is a false alarm.
    public var negativeDuration: Double {
        Double(samples.count - keywordRanges.reduce(0) { $0 + $1.count }) / Double(sampleRate)
    }

    /// Speech level of every clip, dB relative to full scale.
    public static let speechLevel: Float = -26

    /// Recordings of noise (or music) without speech, heard alone after each pass's speech at
    /// the speech level ± `noiseAloneLevelSpread` dB: does the model wake with nobody talking?
    public struct NoiseAlone: Sendable {
        public var source: String
        public var clips: [[Float]]
        public var names: [String]

        public init(source: String, clips: [[Float]], names: [String] = []) {
            self.source = source
            self.clips = clips
            self.names = names
        }
    }

    /// How far above or below the speech level noise heard alone is played, dB (drawn per clip).
    public static let noiseAloneLevelSpread: Float = 10

    /// `positiveNames` and `negativeNames` (optional, one per clip) label `keywordNames` and
    /// `negativeClips`; `negativeSources` (optional, one per clip) says which corpus each came from,
    /// for false alarms per source. With several `passes` every clip is heard that many times, each
    /// pass in its own order, pauses and stretch of noise: where a clip lands in the noise moves a
    /// model's figures by more than a recipe change does, so they are worth pooling over passes.
    /// `keywordPause` (seconds) puts each keyword that close after the speech before it, from the
    /// end of that speech to the start of the keyword's (the clips' own silences count toward it):
    /// "…what is the weather like. Hey SUSI" is heard too, and a frontend with memory (PCEN) still
    /// hears the talk before. nil: the negative's pause and 0.5–1.5 s more.
    public init(positives: [[Float]], positiveNames: [String] = [], negatives: [[Float]], negativeNames: [String] = [],
                negativeSources: [String] = [], noise: [[Float]], snr: Float?, noiseAlone: [NoiseAlone] = [],
                keywordPause: ClosedRange<Double>? = nil, seed: UInt64, passes: Int = 1, sampleRate: Int = AudioFormat.sampleRate) {
        self.sampleRate = sampleRate
        func labels(_ names: [String], of clips: [[Float]], _ kind: String) -> [String] {
            names.count == clips.count ? names : clips.indices.map { "\(kind) clip \($0 + 1)" }
        }
        let speechSources = negativeSources.count == negatives.count ? negativeSources : negatives.map { _ in "speech" }
        var names: [String] = []
        for source in speechSources + noiseAlone.map(\.source) where !names.contains(source) { names.append(source) }
        let index = { (source: String) in names.firstIndex(of: source)! }
        let negativeLabels = labels(negativeNames, of: negatives, "negative")
        var builder = Builder(
            keywords: zip(positives.map(Self.levelled), labels(positiveNames, of: positives, "keyword")).map { clip, name in
                (clip: clip, name: name, lead: SpeechBounds.find(in: clip)?.start ?? 0)
            },
            negatives: negatives.indices.map { i in
                let clip = Self.levelled(negatives[i])
                return (clip: clip, name: negativeLabels[i], source: index(speechSources[i]),
                        tail: clip.count - (SpeechBounds.find(in: clip)?.end ?? clip.count))
            },
            noise: noise.map(Self.atUnitLevel),
            noiseAlone: noiseAlone.flatMap { set in
                zip(set.clips, labels(set.names, of: set.clips, "\(set.source) noise")).map {
                    (clip: Mixing.normalise($0, toRMS: pow(10, Self.speechLevel / 20)), name: $1, source: index(set.source))
                }
            },
            snr: snr, keywordPause: keywordPause, sampleRate: sampleRate, rng: SeededRandom(seed: seed),
            sourceSamples: names.map { _ in 0 })
        for _ in 0..<max(passes, 1) { builder.appendPass() }
        samples = builder.stream
        keywordRanges = builder.keywordRanges
        keywordNames = builder.keywordNames
        negativeClips = builder.negativeClips
        negativeClipSources = builder.negativeClipSources
        sourceNames = names
        sourceSamples = builder.sourceSamples
    }

    /// `clip` scaled so that its speech is at `speechLevel`.
    static func levelled(_ clip: [Float]) -> [Float] {
        let bounds = SpeechBounds.find(in: clip).map { $0.start..<$0.end } ?? clip.indices
        let level = Mixing.rms(clip[bounds])
        guard level > 1e-7 else { return clip }
        let gain = pow(10, speechLevel / 20) / level
        return clip.map { max(-1, min(1, $0 * gain)) }
    }

    /// Lays out the passes one after another, from one random sequence.
    private struct Builder {
        /// `lead`: samples before the keyword's speech; `tail`: samples after a negative's speech.
        let keywords: [(clip: [Float], name: String, lead: Int)]
        let negatives: [(clip: [Float], name: String, source: Int, tail: Int)]
        let noise: [[Float]]
        let noiseAlone: [(clip: [Float], name: String, source: Int)]
        let snr: Float?
        let keywordPause: ClosedRange<Double>?
        let sampleRate: Int
        var rng: SeededRandom
        var sourceSamples: [Int]
        var stream: [Float] = []
        var keywordRanges: [Range<Int>] = []
        var keywordNames: [String] = []
        var negativeClips: [(range: Range<Int>, name: String)] = []
        var negativeClipSources: [Int] = []
        /// The last negative clip's silence after its speech, and how much of it is pause (removable).
        var lastNegative: (source: Int, silence: Int, pause: Int)?

        /// Every keyword clip once, spread evenly through every negative clip once, then noise;
        /// then the noise heard alone, if any.
        mutating func appendPass() {
            let passStart = stream.count
            var negativeQueue = negatives.shuffled(using: &rng)[...]
            let negativeSamples = negatives.reduce(0) { $0 + $1.clip.count }
            let perGap = keywords.isEmpty ? negativeSamples : negativeSamples / (keywords.count + 1)
            func appendNegatives(upTo target: Int) {
                let goal = target == .max ? .max : stream.count + target
                while stream.count < goal, let (clip, name, source, tail) = negativeQueue.popFirst() {
                    let start = stream.count
                    negativeClips.append((start..<(start + clip.count), name))
                    negativeClipSources.append(source)
                    stream += clip
                    appendPause(0.3...1.5)
                    sourceSamples[source] += stream.count - start
                    let pause = stream.count - start - clip.count
                    lastNegative = (source, tail + pause, pause)
                }
            }
            for (clip, name, lead) in keywords.shuffled(using: &rng) {
                lastNegative = nil
                appendNegatives(upTo: perGap)
                if let keywordPause, let last = lastNegative {
                    closeUp(after: last, lead: lead, pause: keywordPause)
                } else {
                    appendPause(0.5...1.5)
                }
                keywordRanges.append(stream.count..<(stream.count + clip.count))
                keywordNames.append(name)
                stream += clip
                appendPause(0.7...1.5)
            }
            appendNegatives(upTo: .max)
            if let snr, !noise.isEmpty { addNoise(from: passStart, snr: snr) }
            appendNoiseAlone()
        }

        /// Takes the pause after the last negative in or out so that `pause` (seconds, drawn)
        /// separates its speech from the keyword's, which starts `lead` samples into its clip.
        private mutating func closeUp(after last: (source: Int, silence: Int, pause: Int), lead: Int, pause: ClosedRange<Double>) {
            let wanted = Int(Double.random(in: pause, using: &rng) * Double(sampleRate))
            let removed = min(last.pause, max(0, last.silence + lead - wanted))
            stream.removeLast(removed)
            sourceSamples[last.source] -= removed
            stream += [Float](repeating: 0, count: max(0, wanted - (last.silence - removed) - lead))
        }

        /// Each noise-alone recording once, in a fresh order, at its own level around the speech level.
        private mutating func appendNoiseAlone() {
            guard !noiseAlone.isEmpty else { return }
            let spread = EvaluationStream.noiseAloneLevelSpread
            for (clip, name, source) in noiseAlone.shuffled(using: &rng) {
                let gain = pow(10, Float.random(in: -spread...spread, using: &rng) / 20)
                negativeClips.append((stream.count..<(stream.count + clip.count), name))
                negativeClipSources.append(source)
                stream += clip.map { max(-1, min(1, $0 * gain)) }
                sourceSamples[source] += clip.count
            }
        }

        private mutating func appendPause(_ seconds: ClosedRange<Double>) {
            stream += [Float](repeating: 0, count: Int(Double.random(in: seconds, using: &rng) * Double(sampleRate)))
        }

        private mutating func addNoise(from start: Int, snr: Float) {
            EvaluationStream.addNoise(noise, to: &stream, from: start, snr: snr, using: &rng)
        }
    }

    /// A noise recording scaled to an RMS level of 1, as `addNoise` takes them.
    static func atUnitLevel(_ noise: [Float]) -> [Float] { Mixing.normalise(noise, toRMS: 1) }

    /// Adds the noise recordings (`atUnitLevel`) to `samples[start...]`, in a fresh order, looped
    /// from a random point, at `snr` dB below the speech level.
    static func addNoise(_ noise: [[Float]], to samples: inout [Float], from start: Int, snr: Float, using rng: inout SeededRandom) {
        let noiseBed = noise.shuffled(using: &rng).reduce(into: [Float]()) { $0 += $1 }
        guard !noiseBed.isEmpty else { return }
        let scale = pow(10, (speechLevel - snr) / 20)
        let offset = Int.random(in: 0..<noiseBed.count, using: &rng)
        for i in start..<samples.count {
            samples[i] = max(-1, min(1, samples[i] + scale * noiseBed[(offset + i - start) % noiseBed.count]))
        }
    }
}

/// Miss rate and false alarms of one model on one stream at one sensitivity.
public struct OperatingPoint: Sendable, Hashable {
    public var sensitivity: Float
    public var threshold: Float
    public var keywords: Int
    public var misses: Int
    public var falseAlarms: Int
    public var negativeHours: Double
    /// When each false alarm happened, in seconds from the start of the stream.
    public var falseAlarmTimes: [Double]
    /// Which keyword ranges (indices into the stream's `keywordRanges`) no detection heard.
    public var missedKeywords: [Int]

    public var missRate: Double { keywords == 0 ? 0 : Double(misses) / Double(keywords) }
    public var falseAlarmsPerHour: Double { negativeHours > 0 ? Double(falseAlarms) / negativeHours : 0 }
}

/// Runs the streaming detector over an evaluation stream across a sweep of sensitivities.
public enum Evaluation {
    /// A detection up to this long after a keyword ends still counts as hearing it.
    public static let lateness = 0.5

    /// With `check`, a detection counts only where the second stage accepts it. `model` is the
    /// one `trace` scored, or one differing only in its detection settings.
    public static func sweep(_ model: KeywordModel, over trace: ScoreTrace, sensitivities: [Float],
                             check: (any DetectionCheck)? = nil) throws -> [OperatingPoint] {
        let thresholds = sensitivities.map { model.detection.sensitivityMap.threshold(forSensitivity: $0) }
        return try zip(sensitivities, replay(model, trace: trace, thresholds: thresholds, check: check)).map { sensitivity, point in
            var point = point
            point.sensitivity = sensitivity
            return point
        }
    }

    /// The same sweep over score thresholds instead of the model's sensitivity map; each point's
    /// sensitivity is the one the map gives its threshold.
    public static func thresholdSweep(_ model: KeywordModel, over trace: ScoreTrace, thresholds: [Float],
                                      check: (any DetectionCheck)? = nil) throws -> [OperatingPoint] {
        try replay(model, trace: trace, thresholds: thresholds, check: check).map { point in
            var point = point
            point.sensitivity = model.detection.sensitivityMap.sensitivity(forThreshold: point.threshold)
            return point
        }
    }

    /// The detector's triggering replayed per threshold over the trace's scores.
    private static func replay(_ model: KeywordModel, trace: ScoreTrace, thresholds: [Float],
                               check: (any DetectionCheck)?) throws -> [OperatingPoint] {
        let stream = trace.stream
        // Lowest threshold first, as the second stage needs them; the points come out in the order asked.
        let order = thresholds.indices.sorted { thresholds[$0] < thresholds[$1] }
        var detections = try Detector.replay(trace.scores, keyword: trace.keyword, of: model, thresholds: order.map { thresholds[$0] })
        if let check { detections = try keepingAccepted(detections, stream: stream, check: check) }
        return zip(order, detections).sorted { $0.0 < $1.0 }.map { index, found in
            let threshold = thresholds[index]
            return score(found, stream: stream, sensitivity: model.detection.sensitivityMap.sensitivity(forThreshold: threshold), threshold: threshold)
        }
    }

    static func score(_ detections: [Detection], stream: EvaluationStream, sensitivity: Float, threshold: Float) -> OperatingPoint {
        let rate = Double(stream.sampleRate)
        var heard = Set<Int>()
        var falseAlarms: [Double] = []
        for detection in detections {
            let sample = detection.time * rate
            if let hit = stream.keywordRanges.firstIndex(where: { Double($0.lowerBound) <= sample && sample <= Double($0.upperBound) + lateness * rate }) {
                heard.insert(hit)
            } else {
                falseAlarms.append(detection.time)
            }
        }
        let missed = stream.keywordRanges.indices.filter { !heard.contains($0) }
        return OperatingPoint(sensitivity: sensitivity, threshold: threshold, keywords: stream.keywordRanges.count,
                              misses: missed.count, falseAlarms: falseAlarms.count,
                              negativeHours: stream.negativeDuration / 3600, falseAlarmTimes: falseAlarms, missedKeywords: missed)
    }

    /// The negative clip playing at `time` (or the pause after it), for reporting false alarms.
    public static func source(of time: Double, in stream: EvaluationStream) -> String {
        clipIndex(at: time, in: stream).map { stream.negativeClips[$0].name } ?? "the start of the stream"
    }

    /// The index of the negative clip playing at `time` (or the pause after it).
    static func clipIndex(at time: Double, in stream: EvaluationStream) -> Int? {
        let sample = Int(time * Double(stream.sampleRate))
        return stream.negativeClips.lastIndex { $0.range.lowerBound <= sample }
    }

    /// False alarms per hour of each source at one operating point; the worst source is the
    /// figure to choose by (a model tuned on some corpora wakes most on the one unlike them).
    public static func bySource(_ point: OperatingPoint, in stream: EvaluationStream) -> [SourceFalseAlarms] {
        var counts = stream.sourceNames.map { _ in 0 }
        for time in point.falseAlarmTimes {
            if let clip = clipIndex(at: time, in: stream) { counts[stream.negativeClipSources[clip]] += 1 }
        }
        return stream.sourceNames.indices.map {
            SourceFalseAlarms(source: stream.sourceNames[$0], hours: Double(stream.sourceSamples[$0]) / Double(stream.sampleRate) / 3600,
                              falseAlarms: counts[$0])
        }
    }

    /// The point with the lowest miss rate (then the fewest false alarms) among those with at
    /// most `limit` false alarms per hour.
    public static func bestPoint(atMost limit: Double, in points: [OperatingPoint]) -> OperatingPoint? {
        points.filter { $0.falseAlarmsPerHour <= limit }
            .min { ($0.missRate, $0.falseAlarmsPerHour) < ($1.missRate, $1.falseAlarmsPerHour) }
    }
}

/// False alarms heard in one source's audio.
public struct SourceFalseAlarms: Sendable, Hashable {
    public var source: String
    public var hours: Double
    public var falseAlarms: Int

    public var perHour: Double { hours > 0 ? Double(falseAlarms) / hours : 0 }
}
