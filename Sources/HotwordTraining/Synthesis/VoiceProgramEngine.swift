import Foundation
import HotwordChildProcess

/// Any text-to-speech program that keeps to a two-call protocol, so voices that are not a Debian
/// package (Kokoro, hibari, a voice of your own) take part like the built-in engines:
///
///     PROGRAM --list                                  one voice a line: NAME<TAB>LANGUAGE
///     PROGRAM --voice NAME --length-scale X --text-file FILE --out OUT.wav
///
/// NAME is letters, digits and `+.-_`; LANGUAGE as espeak-ng names it ("en-us"). X > 1 speaks
/// slower. OUT.wav may have any sample rate. `scripts/voices/hotword-voices.py` is one such
/// program (docs/synthesis.md, "Neural voices").
struct VoiceProgramEngine: SpeechEngine {
    let kind = EngineKind.voiceProgram
    let executable: URL
    let subprocess: Subprocess

    /// At most this many voices, each name and language at most 64 characters: the list is a
    /// program's output, read as untrusted.
    static let maximumVoices = 1000, maximumField = 64

    func voices() throws(SynthesisError) -> [Voice] {
        let text = try SynthesisError.reporting { () throws(ProgramFailure) in try subprocess.run(executable, ["--list"]) }.standardOutput
        return try Self.voices(listed: text, program: executable.path)
    }

    /// The voices of a `--list` output; a line that is not NAME<TAB>LANGUAGE is named.
    static func voices(listed text: String, program: String) throws(SynthesisError) -> [Voice] {
        let lines = text.split(whereSeparator: \.isNewline).filter { !$0.allSatisfy(\.isWhitespace) }
        guard lines.count <= maximumVoices else {
            throw .programFailed(command: "\(program) --list", reason: "\(lines.count) voices: expected at most \(maximumVoices)")
        }
        return try lines.map { line throws(SynthesisError) in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 2, isField(fields[0]), isField(fields[1]) else {
                throw .programFailed(command: "\(program) --list",
                                     reason: "line \"\(line.prefix(80))\": expected NAME<TAB>LANGUAGE, each letters, digits and +.-_ (at most \(maximumField))")
            }
            return Voice(engine: .voiceProgram, name: fields[0], language: fields[1].lowercased())
        }
    }

    /// Rate through the program's length scale; pitch by speed perturbation of its output.
    func render(_ text: String, voice: Voice, style: SpeakingStyle, scratch: URL) throws(SynthesisError) -> [Float] {
        let output = scratch.appendingPathComponent("voice-program.wav")
        let textFile = try writeText(text, in: scratch)
        try SynthesisError.reporting { () throws(ProgramFailure) in
            try subprocess.run(executable, ["--voice", voice.name, "--length-scale", String(format: "%.4f", style.pitch / style.rate),
                                            "--text-file", textFile.path, "--out", output.path])
        }
        return try readOutput(output, pitch: style.pitch)
    }

    private static func isField(_ field: String) -> Bool {
        !field.isEmpty && field.count <= maximumField
            && field.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "+.-_".unicodeScalars.contains($0)) }
    }
}
