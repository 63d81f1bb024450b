import CEspeakNG
import Foundation

/// espeak-ng's voice settings.
public struct EspeakConfiguration: Sendable, Equatable {
    /// A language or voice name, optionally with a variant: "en-us", "de", "en-us+klatt2".
    public var voice: String
    /// Speaking rate in words per minute (80–450).
    public var rate: Int
    /// Base pitch (0–100, 50 is the voice's normal pitch).
    public var pitch: Int

    /// espeak-ng's own limits: the words per minute and the pitches it takes.
    public static let rates = Int(espeakRATE_MINIMUM)...Int(espeakRATE_MAXIMUM)
    public static let pitches = 0...100

    public init(voice: String = "en-us", rate: Int = 175, pitch: Int = 50) {
        self.voice = voice
        self.rate = rate
        self.pitch = pitch
    }
}

/// The embedded synthesiser: libespeak-ng, in-process, at its native 22 050 Hz.
///
/// espeak-ng keeps its state (data, current voice, callback) in process-wide globals, so every
/// synthesiser in the process shares one engine and synthesises one text at a time.
public struct EspeakSynthesizer: SpeechSynthesizer {
    public let configuration: EspeakConfiguration

    /// Checks the settings; the engine itself loads on first use.
    public init(_ configuration: EspeakConfiguration = EspeakConfiguration()) throws(TextToSpeechError) {
        let rates = EspeakConfiguration.rates
        guard rates.contains(configuration.rate) else {
            throw .invalidSetting(backend: "espeak-ng", name: "rate", value: "\(configuration.rate)",
                                  expected: "\(rates.lowerBound)–\(rates.upperBound) words per minute")
        }
        guard EspeakConfiguration.pitches.contains(configuration.pitch) else {
            throw .invalidSetting(backend: "espeak-ng", name: "pitch", value: "\(configuration.pitch)", expected: "0–100")
        }
        self.configuration = configuration
    }

    /// The language of espeak-ng's voice `name` (`de`, `en-us`; a variant such as `en-us+f3` is
    /// its voice's), nil when espeak-ng has no such voice. Blocks until the engine is free: for
    /// commands and checks, not for the cooperative pool.
    public static func language(ofVoice name: String) throws(TextToSpeechError) -> String? {
        try EspeakEngine.shared.queue.runBlocking { () throws(TextToSpeechError) -> String? in
            try EspeakEngine.shared.language(ofVoice: name)
        }
    }

    public func synthesize(_ text: String) async throws(TextToSpeechError) -> SynthesizedAudio {
        let configuration = configuration
        return try await EspeakEngine.shared.queue.run { () throws(TextToSpeechError) -> SynthesizedAudio in
            try EspeakEngine.shared.synthesize(text, configuration)
        }
    }
}

/// The process's one espeak-ng engine.
private final class EspeakEngine: @unchecked Sendable {
    // @unchecked: the mutable state (and espeak-ng's globals) is only touched on `queue`.
    static let shared = EspeakEngine()

    let queue = EngineQueue(label: "hotword.espeak-ng")
    /// The output sample rate once the engine is initialised.
    private var sampleRate: Int?
    private var currentVoice: String?

    /// Runs on `queue` only.
    func synthesize(_ text: String, _ configuration: EspeakConfiguration) throws(TextToSpeechError) -> SynthesizedAudio {
        let sampleRate = try initialize()
        try select(configuration)
        let collector = SampleCollector()
        let status = text.withCString { text in
            espeak_ng_Synthesize(text, strlen(text) + 1, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil,
                                 Unmanaged.passUnretained(collector).toOpaque())
        }
        withExtendedLifetime(collector) {}
        guard status == ENS_OK else {
            throw .espeakSynthesisFailed(voice: configuration.voice, message: Self.message(status))
        }
        return SynthesizedAudio(samples: collector.samples, sampleRate: sampleRate)
    }

    /// Runs on `queue` only.
    func language(ofVoice name: String) throws(TextToSpeechError) -> String? {
        _ = try initialize()
        // The next synthesis selects its own voice again.
        currentVoice = nil
        guard espeak_ng_SetVoiceByName(name) == ENS_OK, let languages = espeak_GetCurrentVoice()?.pointee.languages else { return nil }
        // A priority byte, then the language.
        return String(cString: languages + 1)
    }

    /// Initialises espeak-ng with its installed data on first use; returns its sample rate.
    private func initialize() throws(TextToSpeechError) -> Int {
        if let sampleRate { return sampleRate }
        // The espeak_ng_* calls report errors; the older espeak_Initialize would exit the process.
        espeak_ng_InitializePath(nil)
        var context: espeak_ng_ERROR_CONTEXT?
        let status = espeak_ng_Initialize(&context)
        espeak_ng_ClearErrorContext(&context)
        guard status == ENS_OK else { throw .espeakInitializationFailed(message: Self.message(status)) }
        let output = espeak_ng_InitializeOutput(ENOUTPUT_MODE_SYNCHRONOUS, 0, nil)
        guard output == ENS_OK else { throw .espeakInitializationFailed(message: Self.message(output)) }
        espeak_SetSynthCallback(collectSamples)
        let rate = Int(espeak_ng_GetSampleRate())
        sampleRate = rate
        return rate
    }

    /// Sets voice, rate and pitch; the voice only when it changed (loading one reads files).
    private func select(_ configuration: EspeakConfiguration) throws(TextToSpeechError) {
        if currentVoice != configuration.voice {
            let status = espeak_ng_SetVoiceByName(configuration.voice)
            guard status == ENS_OK else {
                currentVoice = nil
                if status == ENS_VOICE_NOT_FOUND { throw .espeakVoiceNotFound(voice: configuration.voice) }
                throw .espeakSynthesisFailed(voice: configuration.voice, message: Self.message(status))
            }
            currentVoice = configuration.voice
        }
        for (parameter, value) in [(espeakRATE, configuration.rate), (espeakPITCH, configuration.pitch)] {
            let status = espeak_ng_SetParameter(parameter, Int32(value), 0)
            guard status == ENS_OK else {
                throw .espeakSynthesisFailed(voice: configuration.voice, message: Self.message(status))
            }
        }
    }

    private static func message(_ status: espeak_ng_STATUS) -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        espeak_ng_GetStatusCodeMessage(status, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Receives one synthesis's audio from espeak-ng's callback (handed over as the events' user data).
private final class SampleCollector {
    var samples: [Float] = []
}

/// espeak-ng's synthesis callback: appends each block of 16-bit samples to the collector.
private func collectSamples(
    _ wave: UnsafeMutablePointer<Int16>?, _ count: Int32, _ events: UnsafeMutablePointer<espeak_EVENT>?
) -> Int32 {
    guard let wave, count > 0, let userData = events?.pointee.user_data else { return 0 }
    let collector = Unmanaged<SampleCollector>.fromOpaque(userData).takeUnretainedValue()
    collector.samples.append(contentsOf: UnsafeBufferPointer(start: wave, count: Int(count)).lazy.map {
        Float($0) / 32768
    })
    return 0  // 0: continue synthesising
}
