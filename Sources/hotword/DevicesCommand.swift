import ArgumentParser
import HotwordAudio

/// `hotword devices`: the ALSA names to pass with --device, like `arecord -L` and `aplay -L`.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the audio devices to use with --device (capture and playback).")

    func run() throws {
        let devices = try AudioDevices.list()
        for (direction, title) in [(AudioDirection.capture, "Capture devices"), (.playback, "Playback devices")] {
            print("\(title):")
            let matching = devices.filter { $0.directions.contains(direction) }
            if matching.isEmpty {
                print("  (none: is a sound card or USB audio device connected? `arecord -l` lists the hardware)")
            }
            for device in matching {
                print("  \(device.name)")
                for line in device.description.split(separator: "\n") { print("      \(line)") }
            }
            if direction == .capture { print() }
        }
    }
}
