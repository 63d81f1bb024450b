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
///
/// A pair whose companion is on the speech embedding runs that companion only for the windows its
/// fused scores need: with a gate (`CompanionGate`), only around the first network's candidates,
/// catching up on the windows skipped (`CompanionHead`); `cascade` counts what that saved.
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
        let period = models.map(\.outputShift).reduce(1, KeywordModel.leastCommonMultiple)
        let longest = models.map(\.warmUpSamples).max()!
        let warmUpSamples = (longest + period - 1) / period * period
        self.warmUpSamples = warmUpSamples
        // Each network joins the group of its front end; a model with a companion network has one
        // in each of two groups, both feeding the model's scorer. A front end with the speech
        // embedding keeps its recent windows, for the companions run only when asked.
        var groups: [FrontendGroup] = []
        func group(for frontend: FrontendConfig) -> FrontendGroup {
            if let existing = groups.first(where: { $0.config == frontend }) { return existing }
            // A companion asks for the windows of its receptive field; its first network's scores,
            // which decide when, may come as far behind the newest window as the lead-in and a block.
            let memory = models.compactMap(\.companionModel).filter { $0.frontend == frontend }.map { $0.catchUpMemory ?? 1 }.max() ?? 1
            let behind = (warmUpSamples + Self.blockLength) / frontend.outputFrameShift + 2
            // Models were validated, which validates their frontend configs.
            let created = FrontendGroup(config: frontend, leadInSamples: warmUpSamples, keptWindows: memory + behind)
            groups.append(created)
            return created
        }
        var scorers: [KeywordScorer] = []
        for model in models {
            let first = group(for: model.frontend)
            var companion: (scores: any CompanionScores, group: FrontendGroup, runner: (KeywordScorer) -> NetworkRunner)?
            if let companionModel = model.companionModel {
                let home = group(for: companionModel.frontend), network = StreamingNetwork(model: companionModel)
                if let embeddings = home.embeddings {
                    let head = CompanionHead(network: network, model: companionModel, embeddings: embeddings)
                    companion = (head, home, { .head(head, $0) })
                } else {
                    let stored = StoredCompanionScores(width: model.keywords.count)
                    companion = (stored, home, { .stored(network, stored, $0) })
                }
            }
            let scorer = try KeywordScorer(model: model, settings: settings, companionScores: companion?.scores)
            scorers.append(scorer)
            first.runners.append(.first(StreamingNetwork(model: model), scorer))
            if let companion { companion.group.runners.append(companion.runner(scorer)) }
        }
        self.groups = groups
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
            let block: UnsafeBufferPointer<Float>
            if gain == 1 {
                // The usual case: nothing to scale, nothing to copy.
                block = UnsafeBufferPointer(rebasing: samples[start..<start + count])
            } else {
                Kernels.scale(samples.baseAddress! + start, by: gain, into: scaled, count: count)
                block = UnsafeBufferPointer(start: scaled, count: count)
            }
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

    /// What the cascade did since the start (or the last reset): how often the models' gates were
    /// open and what the speech embedding and the companions on it computed.
    public var cascade: CascadeCounts {
        var counts = CascadeCounts()
        for scorer in scorers {
            guard let fusion = scorer.fusion else { continue }
            counts.firstNetworkOutputs += fusion.outputs
            counts.gateOpenOutputs += fusion.openOutputs
        }
        for group in groups {
            guard let embeddings = group.embeddings else { continue }
            counts.windows += embeddings.windowsCompleted
            counts.embeddings += embeddings.embeddingsComputed
            counts.wholeEmbeddings += embeddings.embeddingsComputedWhole
            for case .head(let head, _) in group.runners { counts.companionSteps += head.steps }
        }
        return counts
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

/// Counts of a detector's cascade (`Detector.cascade`).
public struct CascadeCounts: Sendable, Hashable {
    /// Outputs of the first networks of models with a companion, and those at which the model's
    /// gate was open (all of them for a model without a gate).
    public var firstNetworkOutputs = 0
    public var gateOpenOutputs = 0
    /// Windows of the speech embedding heard, and the embeddings computed: all, and those computed
    /// whole (a catch-up's first; the rest reuse the window before's rows).
    public var windows = 0
    public var embeddings = 0
    public var wholeEmbeddings = 0
    /// Embeddings pushed through companion networks on the speech embedding.
    public var companionSteps = 0

    public init() {}

    /// The share of first-network outputs at which the gate was open (1 without any).
    public var openShare: Double { firstNetworkOutputs == 0 ? 1 : Double(gateOpenOutputs) / Double(firstNetworkOutputs) }
}

/// Networks sharing one frontend configuration, and that frontend. With the speech embedding,
/// the group maps every log-mel frame but embeds a window only for the networks that ask: every
/// window for a network whose own front end it is, the windows a companion's fused scores need
/// for a companion (`CompanionHead`).
private final class FrontendGroup {
    let config: FrontendConfig
    /// The spectral stage; the embedding, if any, runs in `embeddings`.
    let extractor: FeatureExtractor
    let embeddings: SpeechEmbeddingStream?
    var runners: [NetworkRunner] = []
    /// Samples of lead-in before the stream's first: times count from the sample after them.
    let leadInSamples: Int
    /// This stream's: `leadInSamples`, or 0 after a reset without the lead-in.
    var streamLeadIn: Int
    var framesEmitted = 0

    /// `config` must be valid.
    init(config: FrontendConfig, leadInSamples: Int, keptWindows: Int) {
        self.config = config
        // A whole number of frames: every network's output period is.
        extractor = try! FeatureExtractor(config: config.spectral, leadInFrames: leadInSamples / config.frameShift)
        embeddings = config.embedding.map { SpeechEmbeddingStream(network: $0, keptWindows: keptWindows) }
        self.leadInSamples = leadInSamples
        streamLeadIn = leadInSamples
    }

    func process(_ samples: UnsafeBufferPointer<Float>, onScore: ((ScoreEvent) -> Void)?, onDetection: (Detection) -> Void) {
        extractor.process(samples) { frame in
            if let embeddings, !embeddings.append(frame) { return }
            // Frame t covers samples [t·shift, t·shift + length) of lead-in and stream: it is heard at its end.
            let end = framesEmitted * config.outputFrameShift + config.outputFrameLength - streamLeadIn
            let time = Double(end) / Double(config.sampleRate)
            let index = framesEmitted
            framesEmitted += 1
            for runner in runners {
                runner.hear(frame: index, time: time, features: { embeddings?.embedding(at: index) ?? frame },
                            onScore: onScore, onDetection: onDetection)
            }
        }
    }

    func reset(leadIn: Bool) {
        extractor.reset(leadIn: leadIn)
        embeddings?.reset()
        streamLeadIn = leadIn ? leadInSamples : 0
        framesEmitted = 0
        for runner in runners { runner.reset() }
    }
}

/// One network of a model, handing its outputs (or, for a companion on the speech embedding,
/// where they would be) to the model's scorer.
private enum NetworkRunner {
    /// A model's own network, on every frame of its front end.
    case first(StreamingNetwork, KeywordScorer)
    /// A companion on every frame of a front end without the embedding, its scores kept for the fusion.
    case stored(StreamingNetwork, StoredCompanionScores, KeywordScorer)
    /// A companion on the speech embedding, run only for the windows the fusion asks for.
    case head(CompanionHead, KeywordScorer)

    /// Frame `index` of the front end, heard at `time`; `features` gives its values (computing them
    /// if need be: an embedding).
    func hear(frame index: Int, time: Double, features: () -> UnsafeBufferPointer<Float>,
              onScore: ((ScoreEvent) -> Void)?, onDetection: (Detection) -> Void) {
        switch self {
        case .first(let network, let scorer):
            guard let output = network.push(features().baseAddress!) else { return }
            scorer.receive(output, at: time, onScore: onScore, onDetection: onDetection)
        case .stored(let network, let stored, let scorer):
            guard let output = network.push(features().baseAddress!) else { return }
            scorer.companionScored(at: time, index: stored.append(output), onScore: onScore, onDetection: onDetection)
        case .head(let head, let scorer):
            guard head.emitsOutput(at: index) else { return }
            scorer.companionScored(at: time, index: index, onScore: onScore, onDetection: onDetection)
        }
    }

    func reset() {
        switch self {
        case .first(let network, _), .stored(let network, _, _): network.reset()
        case .head(let head, _): head.reset()
        }
    }
}

/// A companion network on the speech embedding, run on demand: its scores at a window are computed
/// when a fused score asks for them, from the embeddings of its receptive field — those the stream
/// has not embedded yet are embedded then (a catch-up after the gate was closed). Asked for every
/// window in turn, it computes exactly what a network pushed every embedding computes.
final class CompanionHead: CompanionScores {
    let network: StreamingNetwork
    let embeddings: SpeechEmbeddingStream
    /// Windows its output depends on (nil: all of them, so it must hear each in turn).
    let memory: Int?
    let stride: Int
    /// The last window pushed through the network, and the network's last output.
    private var lastPushed = -1
    private var lastOutput: UnsafeBufferPointer<Float>?
    /// Windows pushed through the network since the start.
    private(set) var steps = 0

    init(network: StreamingNetwork, model: KeywordModel, embeddings: SpeechEmbeddingStream) {
        self.network = network
        self.embeddings = embeddings
        memory = model.catchUpMemory
        stride = model.totalStride
    }

    /// Whether the network gives an output at `window` (every `stride`-th, counting from the start).
    func emitsOutput(at window: Int) -> Bool { (window + 1) % stride == 0 }

    func scores(at window: Int) -> UnsafeBufferPointer<Float> {
        if window == lastPushed, let lastOutput { return lastOutput }
        var from = lastPushed + 1
        if let memory, window - memory + 1 > from {
            // Its receptive field starts after the last window it heard: start afresh there.
            network.reset()
            from = window - memory + 1
        }
        for next in from...window {
            if let output = network.push(embeddings.embedding(at: next).baseAddress!) { lastOutput = output }
            steps += 1
        }
        lastPushed = window
        return lastOutput!
    }

    func forget(before index: Int) {}

    func reset() {
        network.reset()
        lastPushed = -1
        lastOutput = nil
        steps = 0
    }
}

/// A model's scores → a trigger per keyword; for a model with a companion network, the two
/// networks' scores fused first (`LogitFusion`), the companion's heard only while its gate is open.
private final class KeywordScorer {
    let model: KeywordModel
    var triggers: [KeywordTrigger]
    private(set) var fusion: LogitFusion?

    init(model: KeywordModel, settings: [String: KeywordSettings], companionScores: (any CompanionScores)?) throws(DetectorError) {
        self.model = model
        triggers = try Self.triggers(for: model, settings: settings)
        if let companion = model.companion, let companionScores {
            fusion = LogitFusion(weight: companion.weight, width: model.keywords.count, gate: companion.gate, companionScores: companionScores)
        }
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

    /// An output of the model's own network.
    func receive(_ output: UnsafeBufferPointer<Float>, at time: Double, onScore: ((ScoreEvent) -> Void)?, onDetection: (Detection) -> Void) {
        guard fusion != nil else { return score(output, at: time, onScore: onScore, onDetection: onDetection) }
        fusion!.first(output, at: time) { time, fused, first in
            score(fused, at: time, firstNetwork: first, onScore: onScore, onDetection: onDetection)
        }
    }

    /// An output of the companion network (its scores at `index` of the fusion's `companionScores`).
    func companionScored(at time: Double, index: Int, onScore: ((ScoreEvent) -> Void)?, onDetection: (Detection) -> Void) {
        fusion!.companion(at: time, index: index) { time, fused, first in
            score(fused, at: time, firstNetwork: first, onScore: onScore, onDetection: onDetection)
        }
    }

    private func score(_ output: UnsafeBufferPointer<Float>, at time: Double, firstNetwork: UnsafeBufferPointer<Float>? = nil,
                       onScore: ((ScoreEvent) -> Void)?, onDetection: (Detection) -> Void) {
        let background = model.outputKind == .softmaxWithBackground ? 1 : 0
        for k in triggers.indices {
            let raw = output[k + background]
            let (smoothed, detection) = triggers[k].observe(raw, at: time)
            onScore?(ScoreEvent(keyword: triggers[k].keyword, time: time, raw: raw, smoothed: smoothed, firstNetwork: firstNetwork?[k]))
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
