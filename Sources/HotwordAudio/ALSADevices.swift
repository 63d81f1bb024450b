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

    /// Whether ALSA knows `name`: its configuration defines the PCM and the name's arguments fit
    /// the definition — what `snd_pcm_open` reports as "Unknown PCM" otherwise. A known device
    /// may still be absent or busy right now (an unplugged USB card, a sound server not yet
    /// started); an unknown one is a mistake in the configuration. (`default` is unknown on a
    /// machine without any sound card or sound server.)
    public static func isKnown(_ name: String) -> Bool {
        ALSAMessages.route()
        var top: OpaquePointer?
        guard snd_config_update_ref(&top) >= 0, let top else { return false }
        defer { snd_config_unref(top) }
        var definition: OpaquePointer?
        guard snd_config_search_definition(top, "pcm", name, &definition) >= 0 else { return false }
        snd_config_delete(definition)
        return true
    }

    private static func hintField(_ hint: UnsafeMutableRawPointer, _ field: String) -> String? {
        guard let value = snd_device_name_get_hint(hint, field) else { return nil }
        defer { free(value) }
        return String(cString: value)
    }
}
