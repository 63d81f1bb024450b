import ArgumentParser
import Foundation
import HotwordAssistant
import HotwordAudio

/// `hotword say "text"`: speaks through a loudspeaker or into a WAV file.
struct SayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "say",
        abstract: "Speak a text with the configured text-to-speech engine.",
        discussion: """
            Plays through an ALSA device, or writes a 16-bit WAV file with --out. Useful to check a voice or a piper setup. \
            The engine and the loudspeaker are those of hotword.toml ([tts], audio.playback_device; read as `hotword run` \
            reads it), with the options given here over them.
            """)

    @Argument(help: "The text to speak.")
    var text: String

    @Option(help: ArgumentHelp("Read settings from this file only (instead of the system and user files).", valueName: "FILE"))
    var config: String?

    @Option(help: "The ALSA playback device; `hotword devices` lists them. Default: audio.playback_device, else default.")
    var playbackDevice: String?

    /// The name this option had before every command called it --playback-device.
    @Option(name: .customLong("device"), help: .hidden)
    var deprecatedDevice: String?

    @Option(help: ArgumentHelp("Write the speech to this WAV file instead of playing it.", valueName: "FILE"))
    var out: String?

    @OptionGroup var speech: TextToSpeechOptions

    func run() async throws {
        let configuration = try SettingsFiles.load(only: config)
        let backend = try speech.settings(over: configuration.tts)
        let device = deprecatedDevice ?? playbackDevice ?? configuration.audio.playbackDevice
        do {
            guard let synthesizer = try backend.makeSynthesizer() else { return }
            let audio = try await synthesizer.synthesize(text)
            if let out {
                try AudioFileWriter.writeWAV(audio.samples, to: URL(fileURLWithPath: out), sampleRate: audio.sampleRate)
            } else {
                let speaker = try PlaybackDevice(PlaybackConfiguration(device: device, sampleRate: audio.sampleRate))
                defer { speaker.close() }
                _ = try speaker.play(audio.samples, sampleRate: audio.sampleRate)
                _ = speaker.drain()
            }
        } catch let error as AudioDeviceError {
            throw CommandFailure.device(error, choose: "--playback-device NAME")
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}
