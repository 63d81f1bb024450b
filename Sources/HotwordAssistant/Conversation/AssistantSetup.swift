import Foundation
import HotwordAudio
import HotwordCore
import HotwordModels
import HotwordSUSI

/// What the listener needs from the configuration, and what a reload may change in it: the
/// hearing (the wake-word models' detector with its sensitivities, how questions are recorded),
/// where wakes are kept, the gain. Handed to the listener thread (`Listener.replace`).
struct ListenerSettings {
    let hearing: Hearing
    /// Where every wake is kept (`[recording] keep_dir`), if anywhere.
    let wakeRecordings: WakeRecordings?
    let gain: Float

    /// Loads the wake-word models `configuration` names.
    static func models(of configuration: AssistantConfiguration) throws(AssistantError) -> [KeywordModel] {
        var models: [KeywordModel] = []
        for name in configuration.wake.models {
            do throws(ModelFileError) { models.append(try ModelStore.load(named: name)) } catch { throw .model(error) }
        }
        return models
    }

    /// The hearing of the stream in `ring` with `models` and the settings of `configuration`.
    init(models: [KeywordModel], configuration: AssistantConfiguration, ring: SampleRing, ownOutput: OwnOutputLog) throws(AssistantError) {
        let settings = Hearing.Settings(
            keywords: configuration.keywordSettings(for: models.flatMap(\.keywords)),
            ownSoundSensitivity: configuration.wake.speakingSensitivity,
            ownSoundTail: UInt64(max(0, configuration.wake.echoTailMilliseconds * AudioFormat.sampleRate / 1000)),
            recording: configuration.recording,
            followUp: UInt64(configuration.phrases.followUpWindowSeconds * Double(AudioFormat.sampleRate)))
        // The second stages (pocketsphinx, with the speech recogniser's acoustic model and dictionary).
        let checks: [String: PhraseSpotter]
        do throws(PhraseSpotterError) {
            checks = try PhraseSpotter.checks(for: models, settings: settings.keywords, configuration: configuration.stt.pocketsphinx)
        } catch {
            throw .phraseCheck(error)
        }
        do throws(DetectorError) {
            hearing = try Hearing(models: models, settings: settings, audio: ring, ownSound: ownOutput, checks: checks)
        } catch {
            throw .detector(error)
        }
        gain = configuration.audio.gain
        wakeRecordings = try configuration.keepDirectory.map { (path) throws(AssistantError) in try WakeRecordings(directory: path) }
    }
}

/// What the conversation works with, and what a reload may change in it: the speech engines,
/// the SUSI client, the phrases answered here, the cue, the hook.
struct ConversationParts: Sendable {
    let transcriber: QuestionTranscriber
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
            transcriber = previous.parts.transcriber
        } else {
            do throws(SpeechToTextError) { transcriber = try await QuestionTranscriber(configuration.stt) } catch { throw .speechToText(error) }
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
            client: susi, cacheFolder: configuration.skillCacheFolder))
        hook = configuration.events.onWake.isEmpty ? nil : WakeHook(arguments: configuration.events.onWake)
        bargeIn = configuration.wake.bargeIn
        wakeWords = WakeWordText(keywords: keywords)
    }

    private static func loadCue(_ settings: CueSettings) throws(AssistantError) -> SynthesizedAudio? {
        guard settings.enabled else { return nil }
        guard let file = settings.file else { return SynthesizedAudio(samples: Chime.samples, sampleRate: AudioFormat.sampleRate) }
        do {
            let url = URL(fileURLWithPath: file)
            let audio = try AudioFileReader.read(url, sampleRate: try AudioFileReader.info(of: url).sampleRate)
            return SynthesizedAudio(samples: audio.samples, sampleRate: audio.sampleRate)
        } catch {
            throw .cue(file: file, reason: error.description)
        }
    }
}
