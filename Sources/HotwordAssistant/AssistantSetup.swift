import Foundation
import HotwordAudio
import HotwordCore
import HotwordModels
import HotwordSUSI

/// What the listener needs from the configuration, and what a reload may change in it: the
/// wake-word models' detector with its sensitivities, how questions are recorded and where
/// wakes are kept, the gain.
struct ListenerSettings: @unchecked Sendable {  // @unchecked: `detector` is handed to the listener thread and then used only there
    typealias Sensitivity = (keyword: String, normal: Float, duringOwnOutput: Float)

    let detector: Detector
    /// Per keyword, the normal sensitivity and the one used while the assistant's own sound may be in the microphone.
    let sensitivities: [Sensitivity]
    let recording: RecordingSettings
    let gain: Float
    /// How long after it stopped the assistant's own sound may still wake the detector (samples).
    let echoTail: UInt64
    /// How much audio the detector must hear before it can detect (its receptive field, samples).
    let warmUp: Int
    /// Where every wake is kept (`[recording] keep_dir`), if anywhere.
    let wakeRecordings: WakeRecordings?

    /// Loads the models `configuration` names and builds their detector.
    init(configuration: AssistantConfiguration) throws(AssistantError) {
        var models: [KeywordModel] = []
        for name in configuration.wake.models {
            do throws(ModelFileError) { models.append(try ModelStore.load(named: name)) } catch { throw .model(error) }
        }
        let settings = configuration.keywordSettings(for: models.flatMap(\.keywords))
        do throws(DetectorError) { detector = try Detector(models: models, settings: settings) } catch { throw .detector(error) }
        sensitivities = models.flatMap { model in
            model.keywords.map { keyword in
                let normal = settings[keyword]?.sensitivity ?? model.detection.sensitivity
                return (keyword: keyword, normal: normal, duringOwnOutput: min(normal, configuration.wake.speakingSensitivity))
            }
        }
        recording = configuration.recording
        gain = configuration.audio.gain
        echoTail = UInt64(max(0, configuration.wake.echoTailMilliseconds * Listener.sampleRate / 1000))
        warmUp = models.map(Self.warmUpSamples).max() ?? 0
        wakeRecordings = try configuration.recording.keepDirectory.map { (path) throws(AssistantError) in try WakeRecordings(directory: path) }
    }

    var keywords: [String] { detector.keywords }

    /// The audio a model must hear before it can detect: its receptive field, in samples.
    private static func warmUpSamples(_ model: KeywordModel) -> Int {
        let frontend = model.frontend
        let frames = model.receptiveField + model.totalStride - 1
        return ((frames - 1) * frontend.outputFrameShift + frontend.outputFrameLength) * Listener.sampleRate / frontend.sampleRate
    }
}

/// What the conversation works with, and what a reload may change in it: the speech engines,
/// the SUSI client, the phrases answered here, the cue, the hook.
struct ConversationParts: Sendable {
    let recognizer: any SpeechRecognizer
    let synthesizer: (any SpeechSynthesizer)?
    let susi: SUSIClient
    let renderer: SUSIRenderer
    let phrases: VoicePhrases
    let local: LocalAnswers
    let cue: SynthesizedAudio?
    let hook: WakeHook?
    let bargeIn: Bool
    let wakeWords: WakeWordText

    /// Builds the parts `configuration` asks for; the engines and the SUSI client of `previous`
    /// are kept where their settings did not change (pocketsphinx takes a second to load, and
    /// the SUSI client keeps its login).
    init(configuration: AssistantConfiguration, keywords: [String],
         reusing previous: (parts: ConversationParts, configuration: AssistantConfiguration)? = nil) async throws(AssistantError) {
        if let previous, previous.configuration.stt == configuration.stt {
            recognizer = previous.parts.recognizer
        } else {
            do throws(SpeechToTextError) { recognizer = try await configuration.stt.selected.makeRecognizer() } catch { throw .speechToText(error) }
        }
        if let previous, previous.configuration.tts == configuration.tts {
            synthesizer = previous.parts.synthesizer
        } else {
            do throws(TextToSpeechError) { synthesizer = try configuration.tts.selected.makeSynthesizer() } catch { throw .textToSpeech(error) }
        }
        cue = try Self.loadCue(configuration.cue)
        if let previous, previous.configuration.susiClientConfiguration == configuration.susiClientConfiguration {
            susi = previous.parts.susi
        } else {
            susi = SUSIClient(configuration: configuration.susiClientConfiguration)
        }
        renderer = SUSIRenderer(verbose: true, spokenItems: configuration.spokenItems)
        phrases = VoicePhrases(configuration.phrases)
        local = LocalAnswers(susi: susi, catalog: SUSISkillCatalog(
            client: susi, cacheFolder: SUSISkillCatalog.defaultCacheFolder(tokenFile: configuration.susiLogin.tokenFile)))
        hook = configuration.events.onWake.isEmpty ? nil : WakeHook(arguments: configuration.events.onWake)
        bargeIn = configuration.wake.bargeIn
        wakeWords = WakeWordText(keywords: keywords)
    }

    private static func loadCue(_ settings: CueSettings) throws(AssistantError) -> SynthesizedAudio? {
        guard settings.enabled else { return nil }
        guard let file = settings.file else { return SynthesizedAudio(samples: Chime.samples, sampleRate: Chime.sampleRate) }
        do {
            let url = URL(fileURLWithPath: file)
            let audio = try AudioFileReader.read(url, sampleRate: try AudioFileReader.info(of: url).sampleRate)
            return SynthesizedAudio(samples: audio.samples, sampleRate: audio.sampleRate)
        } catch {
            throw .cue(file: file, reason: error.description)
        }
    }
}
