import Foundation
import HotwordAssistant
import HotwordAudio
import HotwordCore
import HotwordTestSupport

/// Real engines and audio shared by the speech tests.
enum SpeechFixtures {
    /// One decoder for the whole test run: loading the models takes about a second, and sharing
    /// it also exercises the recogniser's queueing of concurrent callers.
    static func pocketsphinx() async throws -> PocketSphinxRecognizer {
        try await SharedRecognizer.instance.recognizer()
    }

    private actor SharedRecognizer {
        static let instance = SharedRecognizer()
        private var loading: Task<PocketSphinxRecognizer, any Error>?

        func recognizer() async throws -> PocketSphinxRecognizer {
            if let loading { return try await loading.value }
            let task = Task { () async throws -> PocketSphinxRecognizer in try await PocketSphinxRecognizer() }
            loading = task
            return try await task.value
        }
    }

    /// The espeak-ng voice pocketsphinx recognises best.
    static let recognisableVoice = EspeakConfiguration(voice: "en-us+klatt4", rate: 175)

    /// espeak-ng speaking `text`, resampled to 16 kHz for a recogniser.
    static func speech(_ text: String, voice: EspeakConfiguration = recognisableVoice) async throws -> [Float] {
        try forRecognizer(try await EspeakSynthesizer(voice).synthesize(text))
    }

    /// Synthesised audio resampled to the rate recognisers take.
    static func forRecognizer(_ audio: SynthesizedAudio) throws -> [Float] {
        try Resampler.convert(audio.samples, from: Double(audio.sampleRate), to: Double(AudioFormat.sampleRate))
    }

    static func rms(_ samples: [Float]) -> Float {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0) { $0 + $1 * $1 } / Float(samples.count)).squareRoot()
    }

    /// Seconds from the first to the last sample louder than -40 dBFS: the speech without the
    /// pauses engines put around it.
    static func spokenDuration(_ audio: SynthesizedAudio) -> Double {
        guard let first = audio.samples.firstIndex(where: { abs($0) > 0.01 }),
              let last = audio.samples.lastIndex(where: { abs($0) > 0.01 }) else { return 0 }
        return Double(last - first) / Double(audio.sampleRate)
    }

    /// Writes an executable shell script into `folder` and returns its path. The file is written
    /// through a close-on-exec descriptor: a descriptor inherited by a program that another test
    /// starts meanwhile would keep the script "busy" and unrunnable.
    static func script(_ name: String, in folder: URL, _ body: String) throws -> String {
        let path = folder.appendingPathComponent(name).path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        let text = Array("#!/bin/sh\n\(body)\n".utf8)
        guard write(descriptor, text, text.count) == text.count else { throw POSIXError(.EIO) }
        return path
    }
}

/// Whether the words of `transcript` include `word`.
func transcript(_ transcript: String, contains word: String) -> Bool {
    transcript.split(separator: " ").contains(Substring(word))
}
