import CALSA

/// An ALSA PCM a user can name with `--device`, as `arecord -L` / `aplay -L` show it.
public struct AudioDeviceInfo: Sendable, Equatable {
    /// The name to open it with, e.g. `default`, `plughw:CARD=Device,DEV=0`.
    public var name: String
    /// ALSA's description; may span several lines (card name, then device).
    public var description: String
    /// The directions the device supports (from the hint's IOID; both when it has none).
    public var directions: Set<AudioDirection>

    public init(name: String, description: String, directions: Set<AudioDirection>) {
        self.name = name
        self.description = description
        self.directions = directions
    }
}

/// The PCM devices ALSA knows: its configuration's named devices and every card's.
public enum AudioDevices {
    /// All PCMs with a hint, in ALSA's order.
    public static func list() throws(AudioDeviceError) -> [AudioDeviceInfo] {
        ALSAMessages.route()
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        let code = snd_device_name_hint(-1, "pcm", &hints)
        guard code >= 0, let hints else { throw .cannotList(reason: alsaErrorText(code)) }
        defer { snd_device_name_free_hint(hints) }
        var devices: [AudioDeviceInfo] = []
        var entry = hints
        while let hint = entry.pointee {
            defer { entry += 1 }
            guard let name = hintField(hint, "NAME") else { continue }
            let directions: Set<AudioDirection> = switch hintField(hint, "IOID") {
            case "Input": [.capture]
            case "Output": [.playback]
            default: [.capture, .playback]
            }
            devices.append(AudioDeviceInfo(name: name, description: hintField(hint, "DESC") ?? "", directions: directions))
        }
        return devices
    }

    /// The PCMs that support `direction`.
    public static func list(_ direction: AudioDirection) throws(AudioDeviceError) -> [AudioDeviceInfo] {
        try list().filter { $0.directions.contains(direction) }
    }

    private static func hintField(_ hint: UnsafeMutableRawPointer, _ field: String) -> String? {
        guard let value = snd_device_name_get_hint(hint, field) else { return nil }
        defer { free(value) }
        return String(cString: value)
    }
}
