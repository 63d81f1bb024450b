import Foundation
import HotwordChildProcess
import HotwordJSON

/// Piper's neural (VITS) voices, spoken by the `piper` program of PyPI's piper-tts: every
/// `NAME.onnx` with its `NAME.onnx.json` in the voice folders, each speaker of a multi-speaker
/// voice a voice of its own ("en_GB-vctk-medium-s12"). These voices were learnt from recordings of
/// people, so they carry what formant and diphone voices lack: a person's timing, breath and
/// timbre (docs/synthesis.md, "Neural voices").
struct PiperEngine: SpeechEngine {
    let kind = EngineKind.piper
    let executable: URL
    let subprocess: Subprocess
    /// Each voice's model and speaker, by `Voice.name`.
    private let models: [String: (model: URL, speaker: Int)]
    private let listed: [Voice]

    /// Reads the voice folders' configurations; a folder that does not exist has no voices, a
    /// configuration that cannot be read is named.
    init(executable: URL, voiceFolders: [URL], subprocess: Subprocess) throws(SynthesisError) {
        self.executable = executable
        self.subprocess = subprocess
        var models: [String: (model: URL, speaker: Int)] = [:]
        var listed: [Voice] = []
        for model in Self.modelFiles(in: voiceFolders) {
            let configuration = try PiperVoiceConfiguration(contentsOf: URL(fileURLWithPath: model.path + ".json"))
            let stem = model.deletingPathExtension().lastPathComponent
            for speaker in 0..<configuration.speakers {
                let name = configuration.speakers == 1 ? stem : "\(stem)-s\(speaker)"
                guard models[name] == nil else { continue }
                models[name] = (model, speaker)
                listed.append(Voice(engine: .piper, name: name, language: configuration.language))
            }
        }
        self.models = models
        self.listed = listed
    }

    func voices() throws(SynthesisError) -> [Voice] { listed }

    /// Rate through piper's phoneme length; pitch by speed perturbation of the output, as for
    /// flite and festival. The text is read from a file, never passed as an argument.
    func render(_ text: String, voice: Voice, style: SpeakingStyle, scratch: URL) throws(SynthesisError) -> [Float] {
        guard let (model, speaker) = models[voice.name] else {
            throw .invalidOption(name: "piper voice", value: voice.name, expected: "one of the voices in the voice folders")
        }
        let output = scratch.appendingPathComponent("piper.wav")
        let textFile = try writeText(text, in: scratch)
        try SynthesisError.reporting { () throws(ProgramFailure) in
            try subprocess.run(executable, ["--model", model.path, "--speaker", String(speaker),
                                            "--length-scale", String(format: "%.4f", style.pitch / style.rate),
                                            "--input-file", textFile.path, "--output-file", output.path])
        }
        return try readOutput(output, pitch: style.pitch)
    }

    /// The `.onnx` files that have their `.onnx.json` beside them, in name order.
    static func modelFiles(in folders: [URL]) -> [URL] {
        folders.flatMap { folder -> [URL] in
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            return names.filter { $0.hasSuffix(".onnx") && names.contains($0 + ".json") }.sorted()
                .map { folder.appendingPathComponent($0) }
        }
    }
}

/// What synthesis needs of a piper voice's `.onnx.json`: how many speakers, and the language.
struct PiperVoiceConfiguration: Equatable {
    /// Limits a hostile or broken file cannot pass: a configuration is a few kilobytes.
    static let maximumBytes = 4 << 20
    static let maximumSpeakers = 10_000
    static let maximumDepth = 16

    var speakers: Int
    /// espeak-ng's name for it ("en-us"), as the other engines name languages.
    var language: String

    init(speakers: Int, language: String) {
        self.speakers = speakers
        self.language = language
    }

    init(contentsOf url: URL) throws(SynthesisError) {
        let data: Data
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            if let size = attributes[.size] as? Int, size > Self.maximumBytes {
                throw SynthesisError.file(path: url.path, reason: "a piper voice configuration of \(size) bytes: expected at most \(Self.maximumBytes)")
            }
            data = try Data(contentsOf: url)
        } catch let error as SynthesisError {
            throw error
        } catch {
            throw .file(path: url.path, reason: "cannot read the piper voice configuration: \(error.localizedDescription)")
        }
        try self.init(data: data, path: url.path)
    }

    init(data: Data, path: String) throws(SynthesisError) {
        guard JSONNesting.firstOffset(deeperThan: Self.maximumDepth, in: data) == nil else {
            throw .file(path: path, reason: "JSON nested more than \(Self.maximumDepth) deep: not a piper voice configuration")
        }
        let fields: Fields
        do {
            fields = try JSONDecoder().decode(Fields.self, from: data)
        } catch {
            throw .file(path: path, reason: "not a piper voice configuration: \(JSONDecodingFailure.reason(error, in: data))")
        }
        let speakers = fields.num_speakers ?? 1
        guard (1...Self.maximumSpeakers).contains(speakers) else {
            throw .file(path: path, reason: "num_speakers \(speakers): expected 1 to \(Self.maximumSpeakers)")
        }
        guard let language = fields.espeak?.voice ?? fields.language?.code, !language.isEmpty, language.count <= 32 else {
            throw .file(path: path, reason: "no language: expected espeak.voice or language.code, e.g. \"en-us\"")
        }
        self.speakers = speakers
        self.language = language.lowercased().replacingOccurrences(of: "_", with: "-")
    }

    /// The keys read, named as piper writes them.
    private struct Fields: Decodable {
        struct Espeak: Decodable { var voice: String? }
        struct Language: Decodable { var code: String? }
        var num_speakers: Int?
        var espeak: Espeak?
        var language: Language?
    }
}
