import Foundation
import HotwordFolders
import HotwordCore
import HotwordModels
import HotwordTOML
import HotwordWyoming

/// Where `hotword run` looks for its configuration.
public enum ConfigurationFiles {
    public static let system = "/etc/hotword/hotword.toml"

    /// In the config folder: `$XDG_CONFIG_HOME/hotword/hotword.toml`, or `~/.config/hotword/hotword.toml`.
    public static func user(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        UserFolder.config.file("hotword.toml", environment: environment).path
    }

    /// The system and user files that exist, system first (the user's values win).
    public static func existing(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        [system, user(environment: environment)].filter { FileManager.default.fileExists(atPath: $0) }
    }
}

/// Reads `hotword.toml` files onto a configuration: each file sets only the keys it has, so
/// loading the system file and then the user file makes the user's values win. Every problem
/// of a file is collected (unknown keys with a suggestion, values of the wrong type or out of
/// range, each with its line) before anything is reported.
public enum ConfigurationLoader {
    /// Every key a file may set, dotted (`recording.trailing_silence_s`); the keys of keyword
    /// tables appear as `wake.keywords."KEYWORD".sensitivity`.
    public static var knownKeys: [String] { ConfigSchema.keyPaths }

    /// Applies `files` in order onto `base`; throws all problems found in any of them.
    public static func load(_ files: [String], onto base: AssistantConfiguration) throws(ConfigErrors) -> AssistantConfiguration {
        var configuration = base
        var errors: [ConfigError] = []
        for file in files {
            errors += apply(file: file, to: &configuration)
        }
        guard errors.isEmpty else { throw ConfigErrors(errors) }
        return configuration
    }

    /// Applies one file; returns its problems (empty when it is fine).
    public static func apply(file: String, to configuration: inout AssistantConfiguration) -> [ConfigError] {
        let text: String
        do {
            text = try String(contentsOfFile: file, encoding: .utf8)
        } catch {
            return [.unreadable(file: file, reason: (error as NSError).localizedDescription)]
        }
        return apply(toml: text, file: file, to: &configuration)
    }

    /// Everything `apply` reports, and also what would fail or be ignored when the file is used:
    /// each model of `[wake] models` and `[wyoming] models` that does not load (a bundled name,
    /// with the one probably meant, or a path), a keyword table naming no keyword of those models,
    /// the cue file, and voices and languages the speech engines do not have. Models are checked even when other keys are wrong. For `hotword config check`.
    public static func check(file: String) -> [ConfigError] {
        var configuration = AssistantConfiguration(clientVersion: "check")
        guard let text = try? String(contentsOfFile: file, encoding: .utf8), let lines = try? TOMLDocument(text) else {
            return apply(file: file, to: &configuration)
        }
        var problems: [ConfigError]
        (configuration, problems) = walk(lines, file: file, onto: configuration)
        var keywords: [String] = []
        for (section, models) in [("wake", configuration.wake.models), ("wyoming", configuration.wyoming.models)] {
            guard let line = lines.line(of: [section, "models"]) else { continue }
            for name in models {
                do throws(ModelFileError) {
                    keywords += try ModelStore.load(named: name).keywords
                } catch {
                    let meant = closestModel(to: name).map { " (did you mean '\($0)'?)" } ?? ""
                    problems.append(.invalidValue(file: file, line: line, key: "\(section).models", value: "\"\(name)\"",
                                                  expected: "a bundled model name or a .hwks file\(meant) (\(error))"))
                }
            }
        }
        // Without a models line the default model listens.
        if lines.line(of: ["wake", "models"]) == nil, let model = try? ModelStore.load(named: configuration.wake.models[0]) {
            keywords += model.keywords
        }
        for table in lines.root["wake"]?.table?["keywords"]?.table?.entries.map(\.key) ?? []
        where KeywordName.match(table, in: keywords) == nil {
            problems.append(.invalidValue(file: file, line: lines.line(of: ["wake", "keywords", table]),
                                          key: TOMLDocument.dotted(["wake", "keywords", table]), value: "{…}",
                                          expected: "a keyword of the models loaded (\(keywords.map { "\"\($0)\"" }.joined(separator: ", "))); this table is ignored"))
        }
        if let line = lines.line(of: ["wyoming", "max_connections"]),
           let problem = WyomingServerLimits.openFilesProblem(maximumConnections: configuration.wyoming.maximumConnections) {
            problems.append(.invalidValue(file: file, line: line, key: "wyoming.max_connections", value: "\(configuration.wyoming.maximumConnections)",
                                          expected: "connections the open files limit can serve: \(problem)"))
        }
        if let cue = configuration.cue.file, let line = lines.line(of: ["cue", "file"]),
           !FileManager.default.isReadableFile(atPath: cue) {
            problems.append(.invalidValue(file: file, line: line, key: "cue.file", value: "\"\(cue)\"", expected: "a readable audio file"))
        }
        for setting in (try? configuration.unusableSpeechSettings()) ?? [] {
            problems.append(.invalidValue(file: file, line: lines.line(of: setting.key), key: TOMLDocument.dotted(setting.key),
                                          value: setting.value, expected: setting.expected))
        }
        return problems.sorted { ($0.line ?? 0) < ($1.line ?? 0) }
    }

    /// The installed model a misspelt name most likely meant (`computr` → `computer`), if any.
    public static func closestModel(to name: String) -> String? {
        ConfigSchema.closest(to: name, in: ModelStore.bundledNames())
    }

    /// Applies TOML text; `file` names it in errors.
    public static func apply(toml text: String, file: String, to configuration: inout AssistantConfiguration) -> [ConfigError] {
        let document: TOMLDocument
        do {
            document = try TOMLDocument(text)
        } catch {
            return [.syntax(file: file, line: error.line, column: error.column, message: error.message)]
        }
        let (updated, errors) = walk(document, file: file, onto: configuration)
        if errors.isEmpty { configuration = updated }
        return errors
    }

    /// `configuration` with every valid key of `document` applied, and the problems of the others.
    private static func walk(_ document: TOMLDocument, file: String, onto configuration: AssistantConfiguration)
        -> (AssistantConfiguration, [ConfigError]) {
        var walker = Walker(file: file, lines: document)
        var updated = configuration
        walker.walk(document.root, path: [], into: &updated)
        walker.checkCombinations(of: updated)
        return (updated, walker.errors.sorted { ($0.line ?? 0) < ($1.line ?? 0) })
    }

    /// Goes through a parsed file, section by section, applying every key it knows.
    private struct Walker {
        let file: String
        let lines: TOMLDocument
        var errors: [ConfigError] = []

        mutating func walk(_ table: TOMLTable, path: [String], into configuration: inout AssistantConfiguration) {
            let section = ConfigSchema.section(at: path)
            for (name, value) in table.entries {
                let keyPath = path + [name]
                if section?.subsection(named: name) != nil {
                    guard let child = value.table else {
                        invalid(keyPath, value: value, expected: "a table ([\(TOMLDocument.dotted(keyPath))])")
                        continue
                    }
                    walk(child, path: keyPath, into: &configuration)
                } else if let key = section?.keys.first(where: { $0.name == name }) {
                    if let expected = key.apply(value, &configuration, path) {
                        invalid(keyPath, value: value, expected: expected)
                    }
                } else {
                    let known = (section?.keys.map(\.name) ?? []) + (section?.subsections ?? []).filter { $0 != "*" }
                    errors.append(.unknownKey(file: file, line: lines.line(of: keyPath), key: TOMLDocument.dotted(keyPath),
                                              suggestion: ConfigSchema.closest(to: name, in: known)))
                }
            }
        }

        /// Rules between keys, checked once the whole file is applied.
        mutating func checkCombinations(of configuration: AssistantConfiguration) {
            let audio = configuration.audio
            if audio.bufferMilliseconds < 2 * audio.periodMilliseconds {
                invalid(["audio", "buffer_ms"], "\(audio.bufferMilliseconds)",
                        expected: "at least two periods (2 × period_ms = \(2 * audio.periodMilliseconds))")
            }
            let recording = configuration.recording
            if recording.trailingSilenceSeconds >= recording.maxLengthSeconds {
                invalid(["recording", "trailing_silence_s"], "\(recording.trailingSilenceSeconds)",
                        expected: "less than max_length_s (\(recording.maxLengthSeconds))")
            }
            let stt = configuration.stt
            if stt.backend == .command,
               !stt.commandArguments.dropFirst().contains(where: { $0.contains(CommandRecognizer.wavPlaceholder) }) {
                invalid(["stt", "command", "arguments"], ConfigSchema.render(stt.commandArguments),
                        expected: "the program and its arguments, one containing \(CommandRecognizer.wavPlaceholder) (needed by backend = \"command\")",
                        fallback: ["stt", "backend"])
            }
            if stt.backend == .whisper, stt.whisper.model.isEmpty {
                invalid(["stt", "whisper", "model"], "\"\"",
                        expected: "a Whisper model folder (model.bin, vocabulary.txt, config.json; needed by backend = \"whisper\")",
                        fallback: ["stt", "backend"])
            }
            if configuration.tts.backend == .command, configuration.tts.commandArguments.isEmpty {
                invalid(["tts", "command", "arguments"], "[]",
                        expected: "the program and its arguments (needed by backend = \"command\")", fallback: ["tts", "backend"])
            }
            let login = configuration.susiLogin
            // A login alone is the account `hotword login` keeps the token of; a password alone is no account.
            if login.login.isEmpty, !login.password.isEmpty {
                invalid(["susi", "password"], "<redacted>", expected: "no password without a login (the account's e-mail address)")
            }
        }

        private mutating func invalid(_ path: [String], value: TOMLValue, expected: String) {
            invalid(path, value.tomlText, expected: expected)
        }

        /// An invalid value (as written in TOML) at `path`, or at `fallback` when the file does not have `path`.
        private mutating func invalid(_ path: [String], _ value: String, expected: String, fallback: [String]? = nil) {
            let line = lines.line(of: path)
            let reported = line == nil ? (fallback ?? path) : path
            errors.append(.invalidValue(file: file, line: line ?? fallback.flatMap { lines.line(of: $0) },
                                        key: TOMLDocument.dotted(reported), value: value, expected: expected))
        }
    }
}
