import Foundation
import HotwordAssistant
import HotwordAudio
import HotwordTestSupport

/// Real engines and audio shared by the speech tests.
enum SpeechFixtures {
    /// One decoder for the whole test run: loading the models takes about a second, and sharing
    /// it also exercises the recogniser's queueing of concurrent callers.
    static let pocketsphinx = Result { () throws(SpeechToTextError) in
        try PocketSphinxRecognizer()
    }

    /// The espeak-ng voice pocketsphinx recognises best (see the speech section of the README).
    static let recognisableVoice = EspeakConfiguration(voice: "en-us+klatt4", rate: 175)

    /// espeak-ng speaking `text`, resampled to 16 kHz for a recogniser.
    static func speech(_ text: String, voice: EspeakConfiguration = recognisableVoice) async throws -> [Float] {
        let audio = try await EspeakSynthesizer(voice).synthesize(text)
        return try Resampler.convert(audio.samples, from: Double(audio.sampleRate), to: Double(speechRecognizerSampleRate))
    }

    static func rms(_ samples: [Float]) -> Float {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0) { $0 + $1 * $1 } / Float(samples.count)).squareRoot()
    }

    /// Writes an executable shell script into `folder` and returns its path.
    static func script(_ name: String, in folder: URL, _ body: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data("#!/bin/sh\n\(body)\n".utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        return url.path
    }
}

/// Whether the words of `transcript` include `word`.
func transcript(_ transcript: String, contains word: String) -> Bool {
    transcript.split(separator: " ").contains(Substring(word))
}
