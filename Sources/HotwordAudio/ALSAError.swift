import CALSA

/// Which way audio flows through a device.
public enum AudioDirection: String, Sendable, CaseIterable {
    case capture, playback
}

/// Why an ALSA device could not be used. Each case names the device and carries ALSA's own
/// explanation (`snd_strerror`) where ALSA gave one.
public enum AudioDeviceError: Error, Equatable, CustomStringConvertible {
    /// `snd_pcm_open` failed: the name is unknown, the hardware is absent, or it is busy.
    /// `code` is the negative errno ALSA returned.
    case cannotOpen(device: String, direction: AudioDirection, code: Int32, reason: String)
    /// The device offers nothing we can use for `what` (access, sample format, channels, rate).
    case unsupported(device: String, direction: AudioDirection, what: String, reason: String)
    /// ALSA refused a configuration step (`step` names the ALSA call).
    case cannotConfigure(device: String, direction: AudioDirection, step: String, reason: String)
    /// A value given to us makes no sense (a period of 0 frames, a sample rate of -1, ...).
    case invalidRequest(device: String, direction: AudioDirection, problem: String)
    /// `snd_device_name_hint` failed.
    case cannotList(reason: String)

    /// The device the error is about, if any.
    public var device: String? {
        switch self {
        case let .cannotOpen(device, _, _, _), let .unsupported(device, _, _, _),
             let .cannotConfigure(device, _, _, _), let .invalidRequest(device, _, _):
            device
        case .cannotList:
            nil
        }
    }

    /// True when another device name is the likely fix (the description then ends by pointing
    /// to `hotword devices`), so a command can add how to pass one.
    public var suggestsAnotherDevice: Bool {
        switch self {
        case .cannotOpen, .unsupported: true
        case .cannotConfigure, .invalidRequest, .cannotList: false
        }
    }

    public var description: String {
        switch self {
        case let .cannotOpen(device, direction, _, reason):
            "\(direction) device '\(device)' could not be opened: \(reason) — \(Self.listHint)"
        case let .unsupported(device, direction, what, reason):
            "\(direction) device '\(device)' does not support \(what): \(reason) — \(Self.listHint)"
        case let .cannotConfigure(device, direction, step, reason):
            "\(direction) device '\(device)' could not be configured (\(step)): \(reason)"
        case let .invalidRequest(device, direction, problem):
            "\(direction) device '\(device)': \(problem)"
        case let .cannotList(reason):
            "audio devices could not be listed: \(reason)"
        }
    }

    private static let listHint = "list devices with `hotword devices`"
}

/// ALSA's text for a negative error code.
func alsaErrorText(_ code: some BinaryInteger) -> String {
    String(cString: snd_strerror(Int32(truncatingIfNeeded: code)))
}
