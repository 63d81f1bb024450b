import Foundation
import HotwordChildProcess

/// flite (CMU's small festival): diphone (kal, 8 kHz) and clustergen voices (kal16, awb, rms, slt).
struct FliteEngine: SpeechEngine {
    let kind = EngineKind.flite
    let executable: URL
    let subprocess: Subprocess

    /// The voices `flite -lv` lists, except limited-domain ones (awb_time only speaks the time).
    func voices() throws(SynthesisError) -> [Voice] {
        let text = try SynthesisError.reporting { () throws(ProgramFailure) in try subprocess.run(executable, ["-lv"]) }.standardOutput
        guard let list = text.split(separator: ":", maxSplits: 1).last else { return [] }
        return list.split(whereSeparator: \.isWhitespace).map(String.init)
            .filter { !$0.hasSuffix("_time") }
            .map { Voice(engine: kind, name: $0, language: "en-us") }
    }

    /// Rate through the duration stretch; pitch by speed perturbation of the output (flite's own
    /// pitch setting is an absolute mean in Hz that differs per voice).
    func render(_ text: String, voice: Voice, style: SpeakingStyle, scratch: URL) throws(SynthesisError) -> [Float] {
        let output = scratch.appendingPathComponent("flite.wav")
        let stretch = style.pitch / style.rate
        let textFile = try writeText(text, in: scratch)
        try SynthesisError.reporting { () throws(ProgramFailure) in
            try subprocess.run(executable, ["-voice", voice.name, "--setf", "duration_stretch=\(String(format: "%.4f", stretch))",
                                            "-f", textFile.path, "-o", output.path])
        }
        return try readOutput(output, pitch: style.pitch)
    }
}
