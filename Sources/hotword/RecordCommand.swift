import ArgumentParser
import Foundation
import HotwordAudio
import HotwordCore

/// `hotword record`: captures from a microphone into a 16 kHz mono 16-bit WAV file.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record from a microphone into a 16 kHz mono 16-bit WAV file.",
        discussion: "Ctrl-C ends the recording early and keeps what was recorded.")

    @Argument(help: "The WAV file to write.")
    var output: String

    @Option(help: "How long to record, in seconds (at most 3600).")
    var seconds: Double

    @Option(help: "The ALSA capture device; `hotword devices` lists them.")
    var device = "default"

    @Option(help: "The sample rate to ask the device for, in Hz; the recording is converted to 16 kHz.")
    var rate = AudioFormat.sampleRate

    /// -60 dBFS: below any voice, and above the noise floor of a muted or absent microphone.
    private static let silence: Float = 0.001

    func validate() throws {
        guard seconds > 0, seconds <= 3600 else {
            throw ValidationError("--seconds must be more than 0 and at most 3600, not \(seconds)")
        }
        guard (1_000...384_000).contains(rate) else {
            throw ValidationError("--rate must be between 1000 and 384000 Hz, not \(rate)")
        }
    }

    func run() throws {
        let microphone = try InterruptibleCapture(device: device, sampleRate: rate)
        let capture = microphone.capture

        var samples = [Float](repeating: 0, count: Int((seconds * Double(AudioFormat.sampleRate)).rounded()))
        let count = capture.read(into: &samples)
        let format = capture.stats.format
        microphone.close()
        try AudioFileWriter.writeWAV(Array(samples[..<count]), to: URL(fileURLWithPath: output),
                                     sampleRate: AudioFormat.sampleRate)
        let recorded = Double(count) / Double(AudioFormat.sampleRate)
        print("recorded \(recorded) s from '\(device)' (\(format.sampleFormat) \(format.sampleRate) Hz \(format.channels) ch) to \(output)")
        if samples[..<count].allSatisfy({ abs($0) < Self.silence }) {
            printNote("nothing was heard: every sample is below -60 dBFS; check that the microphone is not muted and its gain "
                      + "(alsamixer), or choose another with --device NAME")
        }
    }
}
