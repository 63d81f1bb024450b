import CPocketSphinx
import Foundation
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

    public init(
        acousticModel: String = debianModelFolder + "/en-us",
        languageModel: String = debianModelFolder + "/en-us.lm.bin",
        dictionary: String = debianModelFolder + "/cmudict-en-us.dict",
        logFile: String? = nil
    ) {
        self.acousticModel = acousticModel
        self.languageModel = languageModel
        self.dictionary = dictionary
        self.logFile = logFile
    }

    /// The command-line style arguments pocketsphinx is configured with.
    var arguments: [String] {
        ["-hmm", acousticModel, "-lm", languageModel, "-dict", dictionary, "-logfn", logFile ?? "/dev/null"]
    }
}

/// The embedded offline recogniser: CMU pocketsphinx (Debian's 0.8 / 5prealpha library).
///
/// The decoder is created once (loading the models takes about a second) and reused for every
/// utterance. pocketsphinx decoders are not thread-safe, so the decoder is confined to one serial
/// queue: concurrent `transcribe` calls are queued and decoded one after the other.
public final class PocketSphinxRecognizer: SpeechRecognizer, @unchecked Sendable {
    // @unchecked: `decoder` and `pcm` are only touched on `engine`, a serial queue (and in deinit).
    private let engine = EngineQueue(label: "hotword.pocketsphinx")
    private let decoder: OpaquePointer
    /// Reused 16-bit copy of the utterance; grows to the longest utterance seen, never shrinks.
    private var pcm: [Int16] = []
    private static let logger = Logger(label: "hotword.stt")

    /// Loads the models. Throws if a model is missing or pocketsphinx rejects them.
    public init(_ configuration: PocketSphinxConfiguration = PocketSphinxConfiguration()) throws(SpeechToTextError) {
        try Self.checkModels(configuration)
        let started = ContinuousClock.now
        // pocketsphinx echoes its whole configuration while parsing arguments, before `-logfn`
        // takes effect; route the log first so nothing reaches our stderr.
        if let logFile = configuration.logFile {
            err_set_logfile(logFile)
        } else {
            err_set_logfp(nil)
        }
        let arguments = configuration.arguments
        guard let config = Self.parse(arguments) else {
            throw .pocketsphinxInitializationFailed(arguments: arguments)
        }
        defer { cmd_ln_free_r(config) }
        guard let decoder = ps_init(config) else {
            throw .pocketsphinxInitializationFailed(arguments: arguments)
        }
        self.decoder = decoder
        Self.logger.info("pocketsphinx ready", metadata: [
            "lm": "\(configuration.languageModel)", "seconds": "\((ContinuousClock.now - started).seconds)",
        ])
    }

    deinit {
        ps_free(decoder)
    }

    public func transcribe(_ samples: [Float]) async throws(SpeechToTextError) -> String {
        try await engine.run { () throws(SpeechToTextError) -> String in
            try self.decode(samples)
        }
    }

    /// Decodes one whole utterance; runs on `engine` only.
    private func decode(_ samples: [Float]) throws(SpeechToTextError) -> String {
        guard !samples.isEmpty else { return "" }
        if pcm.count < samples.count {
            pcm = [Int16](repeating: 0, count: samples.count)
        }
        pcm.withUnsafeMutableBufferPointer { pcm in
            for (index, sample) in samples.enumerated() {
                pcm[index] = Int16((min(max(sample, -1), 1) * 32767).rounded())
            }
        }
        let started = ps_start_utt(decoder)
        guard started >= 0 else { throw .pocketsphinxDecodingFailed(call: "ps_start_utt", code: started) }
        // The whole utterance in one call with full_utt = 1: pocketsphinx then normalises the
        // cepstra over the whole utterance, which recognises short commands better than live mode.
        let frames = pcm.withUnsafeBufferPointer { pcm in
            ps_process_raw(decoder, pcm.baseAddress, samples.count, 0, 1)
        }
        let ended = ps_end_utt(decoder)
        guard frames >= 0 else { throw .pocketsphinxDecodingFailed(call: "ps_process_raw", code: frames) }
        guard ended >= 0 else { throw .pocketsphinxDecodingFailed(call: "ps_end_utt", code: ended) }
        guard let hypothesis = ps_get_hyp(decoder, nil) else { return "" }
        return String(cString: hypothesis)
    }

    private static func checkModels(_ configuration: PocketSphinxConfiguration) throws(SpeechToTextError) {
        let required = [
            ("acoustic model (mdef in the -hmm folder)", configuration.acousticModel + "/mdef"),
            ("language model", configuration.languageModel),
            ("dictionary", configuration.dictionary),
        ]
        for (role, path) in required where !FileManager.default.isReadableFile(atPath: path) {
            throw .pocketsphinxModelMissing(role: role, path: path)
        }
    }

    /// pocketsphinx's configuration object for `arguments` (name/value pairs), or nil if rejected.
    private static func parse(_ arguments: [String]) -> OpaquePointer? {
        var argv = arguments.map { strdup($0) }
        defer { argv.forEach { free($0) } }
        return cmd_ln_parse_r(nil, ps_args(), Int32(argv.count), &argv, 1)
    }
}

extension Duration {
    /// The duration in seconds, for logs and measurements.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}
