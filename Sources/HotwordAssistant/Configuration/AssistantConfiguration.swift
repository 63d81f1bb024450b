import Foundation
import HotwordAudio
import HotwordCore
import HotwordHistory
import HotwordSUSI
import HotwordWyoming

/// Everything `hotword run` can be told, one section per table of `hotword.toml` (see
/// `hotword.example.toml` for every key). The defaults are what runs with no file at all.
public struct AssistantConfiguration: Sendable, Equatable {
    public var audio = AudioSettings()
    public var wake = WakeSettings()
    public var detector = DetectorTuning()
    public var cue = CueSettings()
    public var recording = RecordingSettings()
    /// `[recording] keep_dir`: a folder where every wake is kept as a WAV file (see
    /// `WakeRecordings`); nil keeps none.
    public var keepDirectory: String?
    public var stt = SpeechToTextSettings()
    /// The SUSI server and what is sent to it; the account comes from `susiLogin`.
    public var susi: SUSIConfiguration
    public var susiLogin = SUSILogin()
    /// Where SUSI's skill lists are cached (not a key of the file: see `UserFolder`).
    public var skillCacheFolder = SUSISkillCatalog.defaultCacheFolder()
    /// How many table rows or news titles are spoken (all are printed).
    public var spokenItems = 3
    /// `[susi] sync_settings`: `run` pulls the account's settings at start and on reload.
    public var syncSettings = false
    /// What the assistant answers itself (`[susi] help_phrases`, the rating phrases).
    public var phrases = VoicePhraseSettings()
    public var history = HistorySettings()
    public var tts = TextToSpeechSettings()
    public var events = EventSettings()
    /// `hotword serve`: the Wyoming wake-word server.
    public var wyoming = WyomingSettings()

    /// - Parameter clientVersion: this program's version, sent to SUSI in the `User-Agent`.
    public init(clientVersion: String) {
        susi = SUSIConfiguration(clientVersion: clientVersion)
    }

    /// `susi` with the account of `susiLogin`, if one is set.
    public var susiClientConfiguration: SUSIConfiguration {
        var configuration = susi
        configuration.account = susiLogin.account
        return configuration
    }

    /// The detector settings of each of `keywords`: a keyword's own table over `[detector]`
    /// over `[wake] sensitivity`; whatever none of them sets keeps the model's default.
    public func keywordSettings(for keywords: [String]) -> [String: KeywordSettings] {
        var settings: [String: KeywordSettings] = [:]
        for keyword in keywords {
            let own = wake.keywords[KeywordName.normalized(keyword)] ?? KeywordSettings()
            settings[keyword] = KeywordSettings(
                sensitivity: own.sensitivity ?? wake.sensitivity,
                smoothingSeconds: own.smoothingSeconds ?? detector.smoothingSeconds,
                triggerLevel: own.triggerLevel ?? detector.triggerLevel,
                refractorySeconds: own.refractorySeconds ?? detector.refractorySeconds,
                checkPhrase: own.checkPhrase ?? detector.checkPhrase)
        }
        return settings
    }
}

/// `[audio]`: the microphone and the loudspeaker.
public struct AudioSettings: Sendable, Equatable {
    /// ALSA capture device (`hotword devices` lists them).
    public var captureDevice = "default"
    public var playbackDevice = "default"
    /// The rate asked from the microphone; the audio is converted to 16 kHz.
    public var captureRate = AudioFormat.sampleRate
    public var playbackRate = 48_000
    /// Capture period and buffer, in milliseconds.
    public var periodMilliseconds = 32
    public var bufferMilliseconds = 512
    /// Microphone gain applied before detection and recording.
    public var gain: Float = 1
    /// Output volume at start, in percent (SUSI's `audio_volume` changes it).
    public var volumePercent = 100

    public init() {}

    public var capture: CaptureConfiguration {
        CaptureConfiguration(device: captureDevice, sampleRate: captureRate,
                             period: .milliseconds(periodMilliseconds), buffer: .milliseconds(bufferMilliseconds))
    }

    public var playback: PlaybackConfiguration {
        PlaybackConfiguration(device: playbackDevice, sampleRate: playbackRate, volume: Float(volumePercent) / 100)
    }
}

/// `[wake]`: which wake words, how eagerly, and how they behave while the assistant talks.
public struct WakeSettings: Sendable, Equatable {
    /// Bundled model names (`hey_susi`) or `.hwks` paths.
    public var models = ["hey_susi"]
    /// The sensitivity of every keyword without its own; nil keeps the models' tuned 0.5.
    public var sensitivity: Float?
    /// Per keyword (`[wake.keywords."hey susi"]`), by `KeywordName.normalized` spelling.
    public var keywords: [String: KeywordSettings] = [:]
    /// The sensitivity while the assistant's own sound (cue, answer) may reach the microphone:
    /// lower than the normal one, so its own voice does not wake it but a clear wake word does.
    public var speakingSensitivity: Float = 0.2
    /// Whether a wake word heard while busy (transcribing, asking, speaking) interrupts and starts over.
    public var bargeIn = true
    /// How long after the assistant stops playing its sound may still be in the microphone
    /// (room echo, device latency, the detector's smoothing), in milliseconds.
    public var echoTailMilliseconds = 500

    public init() {}
}

/// `[detector]`: overrides of the models' detection defaults for all keywords.
public struct DetectorTuning: Sendable, Equatable {
    public var smoothingSeconds: Float?
    public var triggerLevel: Int?
    public var refractorySeconds: Float?
    /// Whether detections must pass the phrase check (nil: as each model asks).
    public var checkPhrase: Bool?

    public init(smoothingSeconds: Float? = nil, triggerLevel: Int? = nil, refractorySeconds: Float? = nil, checkPhrase: Bool? = nil) {
        self.smoothingSeconds = smoothingSeconds
        self.triggerLevel = triggerLevel
        self.refractorySeconds = refractorySeconds
        self.checkPhrase = checkPhrase
    }
}

/// `[cue]`: the sound played when the wake word is heard.
public struct CueSettings: Sendable, Equatable {
    public var enabled = true
    /// An audio file; nil plays the built-in chime.
    public var file: String?

    public init(enabled: Bool = true, file: String? = nil) {
        self.enabled = enabled
        self.file = file
    }
}

/// `[stt]`: the speech-to-text backend and the settings of each.
public struct SpeechToTextSettings: Sendable, Equatable {
    public enum Backend: String, Sendable, CaseIterable {
        /// Whisper in-process when its model is configured or installed (`concrete`), else pocketsphinx.
        case auto
        case pocketsphinx, http, command, wyoming, whisper
    }

    /// What hears a question when the configured engine cannot (its server down, say).
    public enum Fallback: String, Sendable, CaseIterable {
        case pocketsphinx, none
    }

    public var backend = Backend.auto
    /// Only for a backend other than pocketsphinx (see `QuestionTranscriber`).
    public var fallback = Fallback.pocketsphinx
    public var pocketsphinx = PocketSphinxConfiguration()
    /// whisper.cpp's server listens on port 8080 by default.
    public var http = HTTPRecognizerConfiguration(url: URL(string: "http://127.0.0.1:8080/v1/audio/transcriptions")!)
    /// Program and arguments; `{wav}` is replaced by the utterance's WAV file.
    public var commandArguments: [String] = []
    public var commandTimeoutSeconds = 60.0
    /// wyoming-faster-whisper listens on port 10300 by default.
    public var wyoming = WyomingServiceConfiguration(endpoint: .tcp(host: "127.0.0.1", port: 10300))
    public var whisper = WhisperConfiguration()

    public init() {}

    /// Where `backend = "auto"` finds Whisper installed: the folder `install-whisper.sh
    /// --in-process` writes by default.
    public static let installedWhisperFolders = ["/opt/hotword-whisper/tiny.en"]

    /// These settings with `auto` made concrete: Whisper in-process when `[stt.whisper] model` names
    /// a folder, or else when one of `installedWhisper` holds a readable model.bin (it hears
    /// questions four times better: docs/stt.md); pocketsphinx otherwise.
    public func concrete(installedWhisper folders: [String] = installedWhisperFolders) -> SpeechToTextSettings {
        guard backend == .auto else { return self }
        var settings = self
        if whisper.model.isEmpty, let installed = folders.first(where: { FileManager.default.isReadableFile(atPath: "\($0)/model.bin") }) {
            settings.whisper.model = installed
        }
        settings.backend = settings.whisper.model.isEmpty ? .pocketsphinx : .whisper
        return settings
    }

    /// The chosen backend with its settings (`auto` made concrete).
    public var selected: SpeechToTextBackend {
        let settings = concrete()
        switch settings.backend {
        case .auto, .pocketsphinx: return .pocketsphinx(settings.pocketsphinx)
        case .http: return .http(settings.http)
        case .command: return .command(arguments: settings.commandArguments, timeout: .milliseconds(Int(settings.commandTimeoutSeconds * 1000)))
        case .wyoming: return .wyoming(settings.wyoming)
        case .whisper: return .whisper(settings.whisper)
        }
    }
}

/// The SUSI account in `[susi]`: `login` and `password`, `login` alone, or neither. The password
/// is never shown: `description` and reflection redact it.
public struct SUSILogin: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    public var login = ""
    public var password = ""
    public var tokenFile = SUSIAccount.defaultTokenFile

    public init() {}

    /// With a password, `login` (logging in again whenever the token expires). Without one, the
    /// account `hotword login` kept a token for in `tokenFile` — if `login` is set, only when it
    /// is that account — asking with that token until it expires. Nil (anonymous) otherwise.
    public var account: SUSIAccount? {
        if !login.isEmpty, !password.isEmpty { return SUSIAccount(login: login, password: password, tokenFile: tokenFile) }
        guard let kept = SUSIClient.login(keptIn: tokenFile), login.isEmpty || login == kept else { return nil }
        return SUSIAccount(login: kept, password: "", tokenFile: tokenFile)
    }

    public var description: String {
        "SUSILogin(login: \(login), password: <redacted>, tokenFile: \(tokenFile.path))"
    }

    public var customMirror: Mirror {
        Mirror(self, children: ["login": login, "password": "<redacted>", "tokenFile": tokenFile.path])
    }
}

/// `[tts]`: the text-to-speech backend and the settings of each.
public struct TextToSpeechSettings: Sendable, Equatable {
    public enum Backend: String, Sendable, CaseIterable {
        case espeak, command, wyoming, none
    }

    public var backend = Backend.espeak
    /// Also speak the answers of `hotword ask` (typed questions), as its `--speak` does.
    public var speakAlways = false
    public var espeak = EspeakConfiguration()
    /// Program and arguments; the text comes on standard input, the audio from `{wav}` or standard output.
    public var commandArguments: [String] = []
    public var commandTimeoutSeconds = 60.0
    /// wyoming-piper listens on port 10200 by default.
    public var wyoming = WyomingServiceConfiguration(endpoint: .tcp(host: "127.0.0.1", port: 10200))

    public init() {}

    /// The chosen backend with its settings.
    public var selected: TextToSpeechBackend {
        switch backend {
        case .espeak: .espeak(espeak)
        case .command: .command(arguments: commandArguments, timeout: .milliseconds(Int(commandTimeoutSeconds * 1000)))
        case .wyoming: .wyoming(wyoming)
        case .none: .none
        }
    }
}

/// The phrases in `[susi]` that the assistant answers itself, without asking SUSI. A transcript
/// matches a phrase when both are the same words (case, punctuation and spacing aside).
public struct VoicePhraseSettings: Sendable, Equatable {
    /// Three example questions from different skills, from the cached skill list.
    public var help = ["what can you do", "help"]
    /// Rate the last answer up or down, when said within `feedbackWindowSeconds` of its end.
    public var positive = ["thank you", "thanks", "that was right", "good answer"]
    public var negative = ["that was wrong", "wrong answer", "bad answer"]
    public var feedbackWindowSeconds = 15.0
    /// For this long after an answer ends, a rating phrase needs no wake word (0: it always does).
    public var followUpSeconds = 5.0

    public init() {}

    /// How long the microphone listens without the wake word after an answer: `followUpSeconds`,
    /// within the feedback window, and not at all without rating phrases to listen for.
    public var followUpWindowSeconds: Double {
        positive.isEmpty && negative.isEmpty ? 0 : min(followUpSeconds, feedbackWindowSeconds)
    }
}

/// `[history]`: the conversation history and the planned answers (`history.sqlite`).
public struct HistorySettings: Sendable, Equatable {
    /// False: nothing is kept (not even planned answers across a restart), and no file is made.
    public var enabled = true
    public var file = HistoryLocation.defaultFile()
    public var limits = HistoryLimits()
    /// A planned answer that fell due while hotword was not running is said late (saying so) if
    /// at most this many minutes late; older ones are dropped.
    public var lateLimitMinutes = 60

    public init() {}
}

/// `[events]`: programs run when something happens.
public struct EventSettings: Sendable, Equatable {
    /// Run on every wake word, without a shell, with the keyword and the score appended as the
    /// last two arguments. Empty: nothing runs.
    public var onWake: [String] = []

    public init() {}
}

/// `[wyoming]`: `hotword serve`, the wake-word service for Home Assistant and Rhasspy. Wake-word
/// sensitivity and timing come from `[wake]`, `[wake.keywords."…"]` and `[detector]`, as for `run`.
public struct WyomingSettings: Sendable, Equatable {
    /// `tcp://HOST:PORT` or `unix:///PATH`; 10400 is Home Assistant's customary wake-word port.
    public var endpoint = WyomingEndpoint.tcp(host: "0.0.0.0", port: WyomingEndpoint.defaultPort)
    /// The models offered (bundled names or `.hwks` paths): every bundled one, so that the wake
    /// word can be chosen in Home Assistant.
    public var models = ["hey_susi", "computer", "jarvis", "alexa"]
    /// A connection that sends nothing for this long is closed.
    public var idleTimeoutSeconds = 60.0
    public var maximumConnections = 100
    /// Announce the service on the local network (`_wyoming._tcp`, with Avahi) so Home Assistant finds it.
    public var zeroconf = true
    public var zeroconfName = "hotword"

    public init() {}

    public var limits: WyomingServerLimits {
        WyomingServerLimits(idleTimeout: .milliseconds(Int(idleTimeoutSeconds * 1000)), maximumConnections: maximumConnections)
    }
}
