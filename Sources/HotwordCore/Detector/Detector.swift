/// Hears several keyword models at once in a stream of 16 kHz mono audio.
///
/// Models that share frontend settings share one `FeatureExtractor`. Feed chunks of any size:
/// scores and detections are identical to feeding the whole signal at once. Allocates nothing
/// per chunk. One instance per stream, used from one thread at a time.
///
/// A stream does not start deaf: at its first frame (after `init` and every `reset()`) every
/// network first hears `warmUpSamples` of lead-in — copies of that frame, as if its sound had
/// been there all along (`FeatureExtractor`, "Lead-in") — so a wake word said in the first
/// second is scored like one said after a pause. Without it the networks' first outputs would
/// come from their zero state, which no training example ever produced, and the first ~2 s (the
/// receptive field of a pair on the speech embedding) could not trigger at all. The lead-in's
/// scores go to `onScore` with times before the first frame's end (times count from the stream's
/// first sample); nothing is detected there.
public final class Detector {
    /// Multiplies every input sample before feature extraction (global microphone gain).
    public var gain: Float {
        didSet { precondition(gain.isFinite && gain > 0, "gain must be finite and > 0") }
    }
    /// Called for every network output of every keyword (time order within a model).
    public var onScore: ((ScoreEvent) -> Void)?
    /// Samples processed since the start (or the last reset).
    public private(set) var samplesProcessed = 0

    public let keywords: [String]
    /// The audio every model needs to have heard before its outputs depend on audio alone (the
    /// longest receptive field, companions included), in samples: the lead-in's length, a whole
    /// number of every network's output periods, so outputs fall where they would without it.
    public let warmUpSamples: Int
    private let groups: [FrontendGroup]
    private let scorers: [KeywordScorer]
    private let scaled: UnsafeMutablePointer<Float>
    private static let blockLength = 2048
    private var found: [Detection] = []

    /// - Parameters:
    ///   - models: each validated here; keywords must be unique across models.
    ///   - settings: per keyword name; missing keywords use the model's defaults.
    public init(models: [KeywordModel], settings: [String: KeywordSettings] = [:], gain: Float = 1) throws(DetectorError) {
        guard !models.isEmpty else { throw .noModels }
        guard gain.isFinite, gain > 0 else { throw .invalidGain(gain) }
        for (index, model) in models.enumerated() {
            do { try model.validate() } catch { throw .invalidModel(index: index, error) }
        }
        let allKeywords = models.flatMap(\.keywords)
        if let duplicate = allKeywords.first(where: { name in allKeywords.filter { $0 == name }.count > 1 }) {
            throw .duplicateKeyword(duplicate)
        }
        if let unknown = settings.keys.sorted().first(where: { !allKeywords.contains($0) }) {
            throw .unknownKeyword(unknown, known: allKeywords)
        }
        // Each network joins the group of its front end; a model with a companion network has one
        // in each of two groups, both feeding the model's scorer.
        var byFrontend: [FrontendConfig: [NetworkRunner]] = [:]
        var frontendOrder: [FrontendConfig] = []
        func add(_ runner: NetworkRunner, on frontend: FrontendConfig) {
            if byFrontend[frontend] == nil { frontendOrder.append(frontend) }
            byFrontend[frontend, default: []].append(runner)
        }
        var scorers: [KeywordScorer] = []
        for model in models {
            let scorer = try KeywordScorer(model: model, settings: settings)
            scorers.append(scorer)
            add(NetworkRunner(network: StreamingNetwork(model: model), scorer: scorer, isCompanion: false), on: model.frontend)
            if let companion = model.companionModel {
                add(NetworkRunner(network: StreamingNetwork(model: companion), scorer: scorer, isCompanion: true), on: companion.frontend)
            }
        }
        let period = models.map(\.outputShift).reduce(1, KeywordModel.leastCommonMultiple)
        let longest = models.map(\.warmUpSamples).max()!
        let warmUpSamples = (longest + period - 1) / period * period
        self.warmUpSamples = warmUpSamples
        // Models were validated, which validates their frontend configs.
        groups = frontendOrder.map { FrontendGroup(config: $0, networks: byFrontend[$0]!, leadInSamples: warmUpSamples) }
        self.scorers = scorers
        keywords = allKeywords
        self.gain = gain
        scaled = .allocate(capacity: Self.blockLength)
    }

    deinit { scaled.deallocate() }

    /// The score threshold a keyword's sensitivity currently maps to.
    public func threshold(for keyword: String) -> Float? {
        for scorer in scorers {
            if let trigger = scorer.triggers.first(where: { $0.keyword == keyword }) { return trigger.threshold }
        }
        return nil
    }

    /// Changes a keyword's sensitivity (0…1) while running.
    public func setSensitivity(_ sensitivity: Float, for keyword: String) throws(DetectorError) {
        guard (0...1).contains(sensitivity) else {
            throw .invalidSetting(keyword: keyword, name: "sensitivity", value: "\(sensitivity)", expected: "a number in [0, 1]")
        }
        guard scorers.contains(where: { $0.setSensitivity(sensitivity, for: keyword) }) else {
            throw .unknownKeyword(keyword, known: keywords)
        }
    }

    /// The keywords detected in the next chunk of the stream, in time order (mostly none).
    public func process(_ samples: [Float]) -> [Detection] {
        samples.withUnsafeBufferPointer { process($0) }
    }

    /// The keywords detected in the next chunk of the stream, in time order (mostly none).
    public func process(_ samples: UnsafeBufferPointer<Float>) -> [Detection] {
        found.removeAll(keepingCapacity: true)
        // Locals, so the per-sample loop does no exclusivity checks on class properties.
        let gain = self.gain, scaled = self.scaled
        var start = 0
        while start < samples.count {
            let count = min(Self.blockLength, samples.count - start)
            for i in 0..<count { scaled[i] = samples[start + i] * gain }
            let block = UnsafeBufferPointer(start: scaled, count: count)
            for group in groups {
                group.process(block, onScore: onScore) { found.append($0) }
            }
            start += count
        }
        samplesProcessed += samples.count
        guard !found.isEmpty else { return [] }
        if scorers.count > 1 { found.sort { $0.time < $1.time } }
        return found
    }

    /// Forgets all audio, as if the stream started again. Without the `leadIn` the networks
    /// start from their zero state and ignore their outputs until they have heard a receptive
    /// field: a restart that costs nothing, for a listener that has fallen behind.
    public func reset(leadIn: Bool = true) {
        for group in groups { group.reset(leadIn: leadIn) }
        for scorer in scorers { scorer.reset() }
        samplesProcessed = 0
    }
}

/// Networks sharing one frontend configuration, and that frontend.
private final class FrontendGroup {
    let config: FrontendConfig
    let extractor: FeatureExtractor
    let networks: [NetworkRunner]
    /// Samples of lead-in before the stream's first: times count from the sample after them.
    let leadInSamples: Int
    /// This stream's: `leadInSamples`, or 0 after a reset without the lead-in.
    var streamLeadIn: Int
    var framesEmitted = 0

    /// `config` must be valid.
    init(config: FrontendConfig, networks: [NetworkRunner], leadInSamples: Int) {
        self.config = config
        // A whole number of frames: every network's output period is.
        extractor = try! FeatureExtractor(config: config, leadInFrames: leadInSamples / config.frameShift)
        self.networks = networks
        self.leadInSamples = leadInSamples
        streamLeadIn = leadInSamples
    }

    func process(_ samples: UnsafeBufferPointer<Float>, onScore: ((ScoreEvent) -> Void)?, onDetection: (Detection) -> Void) {
        extractor.process(samples) { frame in
            // Frame t covers samples [t·shift, t·shift + length) of lead-in and stream: it is heard at its end.
            let end = framesEmitted * config.outputFrameShift + config.outputFrameLength - streamLeadIn
            let time = Double(end) / Double(config.sampleRate)
            framesEmitted += 1
            for runner in networks {
                runner.push(frame.baseAddress!, time: time, onScore: onScore, onDetection: onDetection)
            }
        }
    }

    func reset(leadIn: Bool) {
        extractor.reset(leadIn: leadIn)
        streamLeadIn = leadIn ? leadInSamples : 0
        framesEmitted = 0
        for runner in networks { runner.network.reset() }
    }
}

/// One network of a model, handing its outputs to the model's scorer.
private struct NetworkRunner {
    let network: StreamingNetwork
    let scorer: KeywordScorer
    let isCompanion: Bool

    func push(_ frame: UnsafePointer<Float>, time: Double, onScore: ((ScoreEvent) -> Void)?, onDetection: (Detection) -> Void) {
        guard let output = network.push(frame) else { return }
        scorer.receive(output, fromCompanion: isCompanion, at: time, onScore: onScore, onDetection: onDetection)
    }
}

/// A model's scores → a trigger per keyword; for a model with a companion network, the two
/// networks' scores fused first (`LogitFusion`).
private final class KeywordScorer {
    let model: KeywordModel
    var triggers: [KeywordTrigger]
    private var fusion: LogitFusion?

    init(model: KeywordModel, settings: [String: KeywordSettings]) throws(DetectorError) {
        self.model = model
        triggers = try Self.triggers(for: model, settings: settings)
        fusion = model.companion.map { LogitFusion(weight: $0.weight, width: model.keywords.count) }
    }

    /// One trigger per keyword of `model`, with the user's settings over the model's defaults.
    static func triggers(for model: KeywordModel, settings: [String: KeywordSettings]) throws(DetectorError) -> [KeywordTrigger] {
        let outputsPerSecond = Double(model.frontend.sampleRate) / Double(model.frontend.outputFrameShift * model.totalStride)
        let warmup = (model.receptiveField + model.totalStride - 1) / model.totalStride
        return try model.keywords.map { keyword throws(DetectorError) in
            let chosen = settings[keyword] ?? KeywordSettings()
            let defaults = model.detection
            let sensitivity = chosen.sensitivity ?? defaults.sensitivity
            let smoothing = chosen.smoothingSeconds ?? defaults.smoothingSeconds
            let triggerLevel = chosen.triggerLevel ?? defaults.triggerLevel
            let refractory = chosen.refractorySeconds ?? defaults.refractorySeconds
            func invalid(_ name: String, _ value: Any, _ expected: String) -> DetectorError {
                .invalidSetting(keyword: keyword, name: name, value: "\(value)", expected: expected)
            }
            guard (0...1).contains(sensitivity) else { throw invalid("sensitivity", sensitivity, "a number in [0, 1]") }
            let maximumSmoothing = DetectionDefaults.maximumSmoothingSeconds, maximumRefractory = DetectionDefaults.maximumRefractorySeconds
            guard (0...Float(maximumSmoothing)).contains(smoothing) else {
                throw invalid("smoothing", smoothing, "0 to \(maximumSmoothing) seconds")
            }
            guard triggerLevel >= 1 else { throw invalid("trigger level", triggerLevel, "an integer ≥ 1") }
            guard (0...Float(maximumRefractory)).contains(refractory) else {
                throw invalid("refractory period", refractory, "0 to \(maximumRefractory) seconds")
            }
            return KeywordTrigger(
                keyword: keyword, threshold: defaults.sensitivityMap.threshold(forSensitivity: sensitivity),
                smoothingOutputs: Int((Double(smoothing) * outputsPerSecond).rounded()), triggerLevel: triggerLevel,
                refractorySeconds: Double(refractory), warmupOutputs: warmup,
                firstFrameEnd: Double(model.frontend.frameLength) / Double(model.frontend.sampleRate))
        }
    }

    func receive(_ output: UnsafeBufferPointer<Float>, fromCompanion: Bool, at time: Double,
                 onScore: ((ScoreEvent) -> Void)?, onDetection: (Detection) -> Void) {
        guard fusion != nil else { return score(output, at: time, onScore: onScore, onDetection: onDetection) }
        func emit(_ time: Double, _ fused: UnsafeBufferPointer<Float>) {
            score(fused, at: time, onScore: onScore, onDetection: onDetection)
        }
        if fromCompanion { fusion!.companion(output, at: time, emit: emit) } else { fusion!.first(output, at: time, emit: emit) }
    }

    private func score(_ output: UnsafeBufferPointer<Float>, at time: Double, onScore: ((ScoreEvent) -> Void)?, onDetection: (Detection) -> Void) {
        let background = model.outputKind == .softmaxWithBackground ? 1 : 0
        for k in triggers.indices {
            let raw = output[k + background]
            let (smoothed, detection) = triggers[k].observe(raw, at: time)
            onScore?(ScoreEvent(keyword: triggers[k].keyword, time: time, raw: raw, smoothed: smoothed))
            if let detection { onDetection(detection) }
        }
    }

    func setSensitivity(_ sensitivity: Float, for keyword: String) -> Bool {
        guard let k = triggers.firstIndex(where: { $0.keyword == keyword }) else { return false }
        triggers[k].setThreshold(model.detection.sensitivityMap.threshold(forSensitivity: sensitivity))
        return true
    }

    func reset() {
        for k in triggers.indices { triggers[k].reset() }
        fusion?.reset()
    }
}

extension Detector {
    /// The detections `keyword` of `model` makes at each of `thresholds`, from the raw network
    /// scores of one run (`ScoreEvent.raw` and `.time` of that keyword, in order): the same
    /// smoothing, trigger level, refractory period and warm-up as a live detector, without
    /// running the network again — a threshold sweep costs one pass of the network.
    public static func replay(_ scores: [ScoreEvent], keyword: String, of model: KeywordModel, settings: KeywordSettings = KeywordSettings(),
                              thresholds: [Float]) throws(DetectorError) -> [[Detection]] {
        guard let trigger = try KeywordScorer.triggers(for: model, settings: [keyword: settings]).first(where: { $0.keyword == keyword }) else {
            throw .unknownKeyword(keyword, known: model.keywords)
        }
        return thresholds.map { threshold in
            var replayed = trigger
            replayed.setThreshold(threshold)
            return scores.compactMap { replayed.observe($0.raw, at: $0.time).detection }
        }
    }
}
