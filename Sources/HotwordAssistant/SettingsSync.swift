import Foundation
import HotwordSUSI

/// The settings SUSI keeps for an account, mapped onto hotword's own keys and back.
///
/// | SUSI setting | hotword key |
/// |---|---|
/// | `speechOutput` (false) | `tts.backend = "none"`: answers only printed |
/// | `speechOutputAlways` | `tts.speak_always`: `hotword ask` speaks too |
/// | `speechRate` (1 = normal) | `tts.espeak.rate`, 175 words per minute × the rate |
/// | `speechPitch` (1 = normal) | `tts.espeak.pitch`, 50 × the pitch |
/// | `prefLanguage` (`de`, `de-DE`) | `susi.language` (`de`) |
/// | `ttsLanguage` (`de-DE`, `en-US`) | `tts.espeak.voice` (`de`, `en-us`) |
///
/// `hotword settings pull` writes what it got into `susi-settings.toml` beside the SUSI token;
/// the configuration is read with that file first and the configuration files over it, so a key
/// set in `hotword.toml` (or on the command line) wins over the account's setting.
public enum SettingsSync {
    public static let fileName = "susi-settings.toml"

    /// The pulled settings: `susi-settings.toml` beside the token file.
    public static func file(tokenFile: URL) -> URL {
        tokenFile.deletingLastPathComponent().appendingPathComponent(fileName)
    }

    /// What a pull found.
    public struct Pulled: Sendable {
        /// hotword key (dotted) → its value as written in TOML, in the table's order.
        public var keys: [(key: String, value: String)]
        /// SUSI settings with values that could not be used (`name = value`).
        public var unusable: [String]

        /// The keys as a TOML file, one table each, under a comment saying where they came from.
        public func toml(account: String, at date: Date) -> String {
            var lines = ["# The SUSI account settings of \(account), pulled \(date.formatted(Date.ISO8601FormatStyle())).",
                         "# `hotword settings pull` rewrites this file; keys set in hotword.toml win over these."]
            var table = ""
            for (key, value) in keys {
                let parts = key.split(separator: ".")
                let section = parts.dropLast().joined(separator: ".")
                if section != table {
                    lines += ["", "[\(section)]"]
                    table = section
                }
                lines.append("\(parts.last!) = \(value)")
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }

    /// What one SUSI setting's value means for hotword.
    private enum Mapping {
        /// Set this key (dotted) to this value.
        case set(String, TOMLValue)
        /// Nothing to set (`speechOutput = true`: speak, whichever backend is configured).
        case nothing
        /// A value hotword cannot use.
        case unusable
    }

    /// hotword's keys for the account's `settings`; settings it has no key for are left out.
    public static func local(from settings: SUSIUserSettings) -> Pulled {
        let rules: [(name: String, map: (String) -> Mapping)] = [
            ("prefLanguage", { language($0).map { .set("susi.language", .string($0)) } ?? .unusable }),
            ("speechOutput", { Bool($0.lowercased()).map { $0 ? .nothing : .set("tts.backend", .string("none")) } ?? .unusable }),
            ("speechOutputAlways", { Bool($0.lowercased()).map { .set("tts.speak_always", .boolean($0)) } ?? .unusable }),
            ("ttsLanguage", { voice($0).map { .set("tts.espeak.voice", .string($0)) } ?? .unusable }),
            ("speechRate", { multiplier($0).map { .set("tts.espeak.rate", .integer(min(450, max(80, Int(($0 * 175).rounded()))))) } ?? .unusable }),
            ("speechPitch", { multiplier($0).map { .set("tts.espeak.pitch", .integer(min(100, max(0, Int(($0 * 50).rounded()))))) } ?? .unusable }),
        ]
        var pulled = Pulled(keys: [], unusable: [])
        for rule in rules {
            guard let raw = settings[rule.name] else { continue }
            switch rule.map(raw.trimmingCharacters(in: .whitespaces)) {
            case .set(let key, let value): pulled.keys.append((key, value.tomlText))
            case .nothing: break
            case .unusable: pulled.unusable.append("\(rule.name) = \(raw)")
            }
        }
        return pulled
    }

    /// The account settings for `configuration`, as `hotword settings push` stores them.
    public static func susi(from configuration: AssistantConfiguration) -> SUSIUserSettings {
        let espeak = configuration.tts.espeak
        return [
            "speechOutput": String(configuration.tts.backend != .none),
            "speechOutputAlways": String(configuration.tts.speakAlways),
            "speechRate": format(Double(espeak.rate) / 175),
            "speechPitch": format(Double(espeak.pitch) / 50),
            "prefLanguage": configuration.susi.language,
            "ttsLanguage": espeak.voice,
        ]
    }

    /// Fetches the account's settings (the token in `tokenFile`) and writes them as
    /// `susi-settings.toml` beside it (atomically). Returns what was written.
    public static func pull(client: SUSIClient, tokenFile: URL, account: String) async throws(SUSIError) -> Pulled {
        let pulled = local(from: try await client.userSettings(tokenFile: tokenFile))
        let file = file(tokenFile: tokenFile)
        do {
            try Data(pulled.toml(account: account, at: Date()).utf8).write(to: file, options: .atomic)
        } catch {
            throw .tokenFile(reason: "cannot write the pulled settings to \(file.path): \(error.localizedDescription)")
        }
        return pulled
    }

    /// `de-DE`, `de_DE`, `DE` → `de`; nil for anything that is not a language tag.
    private static func language(_ tag: String) -> String? {
        let code = tag.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map { $0.lowercased() } ?? ""
        return (2...3).contains(code.count) && code.allSatisfy({ $0.isASCII && $0.isLetter }) ? code : nil
    }

    /// espeak-ng's voice for a language tag: English keeps its region (`en-us`, `en-gb`), other
    /// languages are their code (`de`).
    private static func voice(_ tag: String) -> String? {
        guard let code = language(tag) else { return nil }
        let region = tag.split(whereSeparator: { $0 == "-" || $0 == "_" }).dropFirst().first.map { $0.lowercased() }
        return code == "en" ? "en-" + (region ?? "us") : code
    }

    /// A positive factor up to 4 (SUSI's clients use 0.5–2).
    private static func multiplier(_ text: String) -> Double? {
        Double(text).flatMap { $0.isFinite && $0 > 0 && $0 <= 4 ? $0 : nil }
    }

    private static func format(_ value: Double) -> String {
        String(format: "%.2f", value)
    }
}
