import Foundation
import HotwordTOML

/// A setting the speech engines cannot follow, found before they run: its key, its value as
/// written in TOML, and what would work.
public struct UnusableSetting: Sendable, Equatable, CustomStringConvertible {
    public var key: [String]
    public var value: String
    public var expected: String

    public var description: String {
        "\(TOMLDocument.dotted(key)) = \(value) is invalid: expected \(expected)"
    }
}

extension AssistantConfiguration {
    /// The voice and language settings the engines do not have, which would otherwise be noticed
    /// only at the first answer, or never: an espeak-ng voice it does not know, a language
    /// pocketsphinx or Whisper (English only here) cannot transcribe, a Whisper folder without the
    /// model, answers in a language the espeak-ng voice does not speak.
    public func unusableSpeechSettings() throws(TextToSpeechError) -> [UnusableSetting] {
        var problems: [UnusableSetting] = []
        let language = susi.language
        if [.auto, .pocketsphinx, .whisper].contains(stt.backend), language != "en" {
            problems.append(UnusableSetting(
                key: ["susi", "language"], value: "\"\(language)\"",
                expected: "\"en\": stt.backend = \"\(stt.backend.rawValue)\" transcribes English only (for \(language) choose http, command or wyoming)"))
        }
        if [.auto, .pocketsphinx].contains(stt.backend) || stt.fallback == .pocketsphinx, case .file(let path) = stt.pocketsphinx.questionModel,
           !FileManager.default.isReadableFile(atPath: path) {
            problems.append(UnusableSetting(
                key: ["stt", "pocketsphinx", "question_model"], value: "\"\(path)\"",
                expected: "a language model file that can be read (ARPA text or binary), \"built\" or \"none\""))
        }
        if stt.backend == .whisper || stt.backend == .auto, !stt.whisper.model.isEmpty,
           let missing = ["model.bin", "vocabulary.txt", "config.json"].first(where: {
               !FileManager.default.isReadableFile(atPath: "\(stt.whisper.model)/\($0)")
           }) {
            problems.append(UnusableSetting(
                key: ["stt", "whisper", "model"], value: "\"\(stt.whisper.model)\"",
                expected: "a Whisper model folder (model.bin, vocabulary.txt, config.json; it has no readable \(missing))"))
        }
        let voice = tts.espeak.voice
        guard let voiceLanguage = try EspeakSynthesizer.language(ofVoice: voice) else {
            problems.append(UnusableSetting(key: ["tts", "espeak", "voice"], value: "\"\(voice)\"",
                                            expected: "a voice espeak-ng has (`espeak-ng --voices` lists them)"))
            return problems
        }
        if tts.backend == .espeak, voiceLanguage.split(separator: "-").first.map(String.init) != language {
            problems.append(UnusableSetting(
                key: ["tts", "espeak", "voice"], value: "\"\(voice)\"",
                expected: "a voice speaking \(language), the language of the answers (this one speaks \(voiceLanguage); `espeak-ng --voices=\(language)` lists them)"))
        }
        return problems
    }
}
