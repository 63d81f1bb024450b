import CPocketSphinx
import Foundation
import HotwordFolders
import HotwordSUSI
import Logging

/// Where pocketsphinx finds its models, and where its own log goes.
public struct PocketSphinxConfiguration: Sendable, Equatable {
    /// The Debian package pocketsphinx-en-us installs the US English models here.
    public static let debianModelFolder = "/usr/share/pocketsphinx/model/en-us"

    /// The acoustic model folder (`-hmm`): holds mdef, means, variances, ….
    public var acousticModel: String
    /// The n-gram language model (`-lm`), text ARPA or binary.
    public var languageModel: String
    /// The pronunciation dictionary (`-dict`).
    public var dictionary: String
    /// pocketsphinx's own log (`-logfn`); nil silences it. Process-wide: pocketsphinx logs globally.
    public var logFile: String?
    /// A model of questions interpolated with `languageModel`: questions put to an assistant are
    /// heard better, other speech worse (docs/stt.md).
    public var questionModel: QuestionModel
    /// The question model's share of the interpolation, 0…1.
    public var questionWeight: Double
    /// Where the dictionary cut to the language models' words is kept (`DecoderDictionary`); nil:
    /// the whole dictionary is loaded.
    public var dictionaryCutFolder: URL?

    /// Where the question model comes from.
    public enum QuestionModel: Sendable, Equatable {
        /// None: `languageModel` alone.
        case none
        /// Built into `file` from the built-in question forms and the skill lists cached in
        /// `skillCache` each time pocketsphinx loads (`QuestionModelFile`).
        case built(file: URL, skillCache: URL)
        /// An n-gram model file, ARPA text or pocketsphinx's binary.
        case file(String)

        /// The one built into the cache folder from the skill lists cached there.
        public static var builtInCache: QuestionModel {
            .built(file: QuestionModelFile.defaultFile(), skillCache: SUSISkillCatalog.defaultCacheFolder())
        }

        /// As `question_model` and `--question-model` name it: "built" (`builtInCache`), "none", or
        /// a file (a leading `~` is the home folder).
        public init(setting: String) {
            switch setting {
            case "built": self = .builtInCache
            case "none": self = .none
            default: self = .file(NSString(string: setting).expandingTildeInPath)
            }
        }
    }

    /// The question model's share when it is used: of 0.2, 0.5, 0.8 and 1 (docs/stt.md), 0.5 and
    /// 0.8 heard assistant questions best (1: words only the general model knows are lost).
    public static let defaultQuestionWeight = 0.5

    public init(
        acousticModel: String = debianModelFolder + "/en-us",
        languageModel: String = debianModelFolder + "/en-us.lm.bin",
        dictionary: String = debianModelFolder + "/cmudict-en-us.dict",
        logFile: String? = nil,
        // Off by default: it hears questions better but telephone prompts worse (docs/stt.md).
        questionModel: QuestionModel = .none,
        questionWeight: Double = defaultQuestionWeight,
        dictionaryCutFolder: URL? = UserFolder.cache.url()
    ) {
        self.acousticModel = acousticModel
        self.languageModel = languageModel
        self.dictionary = dictionary
        self.logFile = logFile
        self.questionModel = questionModel
        self.questionWeight = questionWeight
        self.dictionaryCutFolder = dictionaryCutFolder
    }

    /// The command-line style arguments the recogniser's decoder is configured with (and
    /// `-logfn`), its pronunciations read from `dictionary`.
    func arguments(dictionary: String) -> [String] {
        ["-hmm", acousticModel, "-lm", languageModel, "-dict", dictionary]
    }

    /// The acoustic model's role and path, for checking it is there before pocketsphinx loads it.
    var acousticModelFile: (role: String, path: String) {
        ("acoustic model (mdef in the -hmm folder)", acousticModel + "/mdef")
    }
}

/// The embedded offline recogniser: CMU pocketsphinx (Debian's 0.8 / 5prealpha library).
///
/// The decoder is created once (loading the models takes about a second) and reused for every
/// utterance. All its work runs on pocketsphinx's one serial queue (`PocketSphinxEngine`):
/// concurrent `transcribe` calls are decoded one after the other. A built question model is
/// built again after an utterance once the skill lists changed, and heard from the next one.
public final class PocketSphinxRecognizer: SpeechRecognizer, @unchecked Sendable {
    // @unchecked: `decoder`, `initialCepstralMean`, `pcmChunk`, `skillListsSeen` and `builtModel`
    // are only touched on `engine`, a serial queue.
    private static let engine = PocketSphinxEngine.queue
    private let configuration: PocketSphinxConfiguration
    private var decoder: OpaquePointer
    /// The model's initial cepstral mean (-cmninit), restored before every utterance.
    private var initialCepstralMean: [mfcc_t]
    /// The utterance is converted to 16-bit and fed to pocketsphinx through this one buffer.
    private var pcmChunk = [Int16](repeating: 0, count: 4_096)
    /// When the skill lists the built question model was made from last changed.
    private var skillListsSeen: Date?
    /// What went into the built question model the decoder hears with; nil without one.
    private var builtModel: QuestionModelFile.Report?
    private static let logger = Logger(label: "hotword.stt")

    /// Loads the models (about a second, on the pocketsphinx queue). Throws if a model is missing
    /// or pocketsphinx rejects it.
    public init(_ configuration: PocketSphinxConfiguration = PocketSphinxConfiguration()) async throws(SpeechToTextError) {
        try Self.checkModels(configuration)
        let started = ContinuousClock.now
        if case .built(_, let skillCache) = configuration.questionModel { skillListsSeen = Self.lastChange(of: skillCache) }
        let (questionModel, built) = Self.questionModelPath(configuration)
        let (decoder, mean) = try await Self.engine.run { () throws(SpeechToTextError) in
            let (decoder, mean) = try Self.load(configuration, questionModel: questionModel)
            return (SendableDecoder(pointer: decoder), mean)
        }
        self.configuration = configuration
        self.decoder = decoder.pointer
        initialCepstralMean = mean
        builtModel = built
        Self.logger.debug("pocketsphinx ready", metadata: [
            "lm": "\(configuration.languageModel)", "question_model": "\(questionModel ?? "none")",
            "seconds": "\((ContinuousClock.now - started) / .seconds(1))",
        ])
    }

    deinit {
        PocketSphinxEngine.release(decoder)
    }

    /// What went into the built question model the decoder hears with now; nil without one.
    public var questionModel: QuestionModelFile.Report? {
        get async { await Self.engine.run { self.builtModel } }
    }

    public func transcribe(_ samples: [Float]) async throws(SpeechToTextError) -> String {
        let text = try await Self.engine.run { () throws(SpeechToTextError) -> String in
            try self.decode(samples)
        }
        // After the answer is on its way, not before: the next utterance waits for it, if at all.
        if case .built = configuration.questionModel { Self.engine.enqueue { self.buildQuestionModelAgainIfSkillsChanged() } }
        return text
    }

    /// Builds the question model again when the skill lists changed since it was built (a
    /// "what can you do", `hotword skills`, the day-old cache fetched again), and swaps in a
    /// decoder hearing with it. Runs on `engine` only; on a failure the decoder in use stays.
    private func buildQuestionModelAgainIfSkillsChanged() {
        guard case .built(let file, let skillCache) = configuration.questionModel else { return }
        let lastChange = Self.lastChange(of: skillCache)
        guard lastChange != skillListsSeen else { return }
        skillListsSeen = lastChange
        do throws(SpeechToTextError) {
            var report = try QuestionModelFile.update(file, skillCache: skillCache, dictionary: configuration.dictionary)
            report.written = false
            guard report != builtModel.map({ var model = $0; model.written = false; return model }) else { return }
            let (replacement, mean) = try Self.load(configuration, questionModel: file.path)
            ps_free(decoder)
            decoder = replacement
            initialCepstralMean = mean
            builtModel = report
            Self.logger.info("question model built again from the changed skill lists", metadata: [
                "sentences": "\(report.sentences)", "skill_examples": "\(report.skillExamples)",
            ])
        } catch {
            Self.logger.warning("\(error); the question model stays as it was")
        }
    }

    /// The newest modification among the files of `folder`; nil when it holds none.
    private static func lastChange(of folder: URL) -> Date? {
        let files = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: [.contentModificationDateKey])) ?? []
        return files.compactMap { try? $0.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate }.max()
    }

    /// A decoder as `configuration` asks for, hearing with `questionModel` too if given, and its
    /// initial cepstral mean. Runs on `engine` only.
    private static func load(_ configuration: PocketSphinxConfiguration,
                             questionModel: String?) throws(SpeechToTextError) -> (OpaquePointer, [mfcc_t]) {
        try? PocketSphinxEngine.routeLog(to: configuration.logFile)  // reading the models logs too
        let dictionary = configuration.dictionaryCutFolder.flatMap { folder in
            DecoderDictionary.cut(configuration.dictionary, to: [configuration.languageModel] + [questionModel].compactMap { $0 }, in: folder)
        }
        let decoder = try createDecoder(configuration, dictionary: dictionary ?? configuration.dictionary)
        if let questionModel, !PocketSphinxEngine.interpolate(decoder, with: questionModel, weight: configuration.questionWeight) {
            ps_free(decoder)
            throw .questionModelRejected(path: questionModel)
        }
        let mean = cepstralMeanState(decoder).flatMap { state in
            state.pointee.cmn_mean.map { Array(UnsafeBufferPointer(start: $0, count: Int(state.pointee.veclen))) }
        }
        return (decoder, mean ?? [])
    }

    /// Decodes one whole utterance; runs on `engine` only.
    private func decode(_ samples: [Float]) throws(SpeechToTextError) -> String {
        guard !samples.isEmpty else { return "" }
        // The noise estimate and the live cepstral mean carry over from one utterance to the
        // next, so the same audio would be heard differently depending on what came before: every
        // utterance starts afresh (a new stream resets the noise statistics).
        ps_start_stream(decoder)
        if let state = Self.cepstralMeanState(decoder), !initialCepstralMean.isEmpty {
            cmn_live_set(state, initialCepstralMean)
        }
        let started = ps_start_utt(decoder)
        guard started >= 0 else { throw .pocketsphinxDecodingFailed(call: "ps_start_utt", code: started) }
        // Live mode (full_utt = 0), as pocketsphinx_continuous decodes: the en-us model's
        // cepstral normalisation is tuned for it and recognises clearly better than batch mode.
        var failure: Int32 = 0
        samples.withUnsafeBufferPointer { samples in
            var start = 0
            while start < samples.count, failure >= 0 {
                let count = min(pcmChunk.count, samples.count - start)
                pcmChunk.withUnsafeMutableBufferPointer { pcm in
                    for index in 0..<count {
                        pcm[index] = Int16((min(max(samples[start + index], -1), 1) * 32767).rounded())
                    }
                    failure = min(0, ps_process_raw(decoder, pcm.baseAddress, count, 0, 0))
                }
                start += count
            }
        }
        let ended = ps_end_utt(decoder)
        guard failure >= 0 else { throw .pocketsphinxDecodingFailed(call: "ps_process_raw", code: failure) }
        guard ended >= 0 else { throw .pocketsphinxDecodingFailed(call: "ps_end_utt", code: ended) }
        guard let hypothesis = ps_get_hyp(decoder, nil) else { return "" }
        return normalizedTranscript(String(cString: hypothesis))
    }

    /// The decoder's cepstral-mean normalisation state; nil when normalisation is off.
    private static func cepstralMeanState(_ decoder: OpaquePointer) -> UnsafeMutablePointer<cmn_t>? {
        ps_get_feat(decoder)?.pointee.cmn_struct
    }

    /// Runs on `engine` only.
    private static func createDecoder(_ configuration: PocketSphinxConfiguration, dictionary: String) throws(SpeechToTextError) -> OpaquePointer {
        do {
            return try PocketSphinxEngine.createDecoder(arguments: configuration.arguments(dictionary: dictionary), logFile: configuration.logFile)
        } catch {
            switch error {
            case .logNotWritable(let path): throw .pocketsphinxLogNotWritable(path: path)
            case .rejected(let arguments): throw .pocketsphinxInitializationFailed(arguments: arguments)
            }
        }
    }

    /// The question model's file, built first if it is built (with what went into it); nil for
    /// none, or when it cannot be built — questions are then heard by the general model alone
    /// rather than not at all.
    private static func questionModelPath(_ configuration: PocketSphinxConfiguration) -> (String?, QuestionModelFile.Report?) {
        switch configuration.questionModel {
        case .none:
            return (nil, nil)
        case .file(let path):
            return (path, nil)
        case .built(let file, let skillCache):
            do {
                return (file.path, try QuestionModelFile.update(file, skillCache: skillCache, dictionary: configuration.dictionary))
            } catch {
                logger.warning("\(error); hearing with the general language model alone")
                return (nil, nil)
            }
        }
    }

    private static func checkModels(_ configuration: PocketSphinxConfiguration) throws(SpeechToTextError) {
        var required = [
            configuration.acousticModelFile,
            ("language model", configuration.languageModel),
            ("dictionary", configuration.dictionary),
        ]
        if case .file(let path) = configuration.questionModel { required.append(("question model", path)) }
        if let missing = PocketSphinxEngine.firstMissing(required) {
            throw .pocketsphinxModelMissing(role: missing.role, path: missing.path)
        }
    }
}
