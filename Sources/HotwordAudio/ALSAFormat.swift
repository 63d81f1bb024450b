import CALSA

/// The sample encodings we exchange with ALSA devices (interleaved, little-endian).
public enum AudioSampleFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    case signed16 = "S16_LE"
    case signed32 = "S32_LE"
    case float32 = "FLOAT_LE"

    public var description: String { rawValue }

    public var bytesPerSample: Int {
        switch self {
        case .signed16: 2
        case .signed32, .float32: 4
        }
    }

    var alsaFormat: snd_pcm_format_t {
        switch self {
        case .signed16: SND_PCM_FORMAT_S16_LE
        case .signed32: SND_PCM_FORMAT_S32_LE
        case .float32: SND_PCM_FORMAT_FLOAT_LE
        }
    }
}

/// A period or buffer size, in frames or as a duration (converted at the negotiated rate).
public enum AudioFrameCount: Sendable, Equatable, CustomStringConvertible {
    case frames(Int)
    case milliseconds(Int)

    /// The size in frames at `sampleRate`.
    public func frames(atRate sampleRate: Int) -> Int {
        switch self {
        case let .frames(frames): frames
        case let .milliseconds(milliseconds): milliseconds * sampleRate / 1000
        }
    }

    public var description: String {
        switch self {
        case let .frames(frames): "\(frames) frames"
        case let .milliseconds(milliseconds): "\(milliseconds) ms"
        }
    }
}

/// What a device agreed to after negotiation.
public struct AudioStreamFormat: Sendable, Equatable, CustomStringConvertible {
    public var sampleFormat: AudioSampleFormat
    public var sampleRate: Int
    public var channels: Int
    public var periodFrames: Int
    public var bufferFrames: Int

    public init(sampleFormat: AudioSampleFormat, sampleRate: Int, channels: Int, periodFrames: Int, bufferFrames: Int) {
        self.sampleFormat = sampleFormat
        self.sampleRate = sampleRate
        self.channels = channels
        self.periodFrames = periodFrames
        self.bufferFrames = bufferFrames
    }

    public var bytesPerFrame: Int { sampleFormat.bytesPerSample * channels }

    public var description: String {
        "\(sampleFormat) \(sampleRate) Hz \(channels) ch, period \(periodFrames) frames, buffer \(bufferFrames) frames"
    }
}

/// Counters of one device since it was created; readable from any thread.
public struct AudioDeviceStats: Sendable, Equatable {
    /// Overruns (capture) or underruns (playback) recovered with `snd_pcm_recover`.
    public var xruns = 0
    /// Suspends (system sleep) recovered with `snd_pcm_recover`.
    public var suspends = 0
    /// Successful reopens after the device failed or disappeared.
    public var reopens = 0
    /// Frames moved to or from the device, at the device's rate.
    public var frames = 0
    /// The format of the current (or last) open.
    public var format: AudioStreamFormat

    public init(format: AudioStreamFormat) {
        self.format = format
    }
}

/// How a device that disappeared (unplugged USB microphone, crashed sound server) is reopened:
/// the wait doubles after every attempt, from `initialDelay` up to `maximumDelay`, and falls back
/// to `initialDelay` once audio flows again.
public struct AudioReopenPolicy: Sendable, Equatable {
    public var initialDelay: Duration
    public var maximumDelay: Duration

    public init(initialDelay: Duration = .milliseconds(250), maximumDelay: Duration = .seconds(10)) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }
}

/// What we ask a device for; `ALSAPCM` takes the nearest it offers.
struct ALSAStreamRequest: Sendable, Equatable {
    var sampleFormat: AudioSampleFormat
    var sampleRate: Int
    var channels: Int
    var period: AudioFrameCount
    var buffer: AudioFrameCount

    func checkRateAndChannels(device: String, direction: AudioDirection) throws(AudioDeviceError) {
        guard sampleRate > 0, channels > 0 else {
            throw .invalidRequest(device: device, direction: direction,
                                  problem: "\(sampleRate) Hz with \(channels) channels is not a positive rate and channel count")
        }
    }

    /// The period and the buffer in frames at `rate`; throws unless the period is positive and
    /// the buffer holds at least two.
    func frames(atRate rate: Int, device: String, direction: AudioDirection) throws(AudioDeviceError) -> (period: Int, buffer: Int) {
        let periodFrames = period.frames(atRate: rate)
        let bufferFrames = buffer.frames(atRate: rate)
        guard periodFrames > 0, bufferFrames >= 2 * periodFrames else {
            throw .invalidRequest(device: device, direction: direction,
                                  problem: "a period of \(period) (\(periodFrames) frames at \(rate) Hz) and a buffer of "
                                      + "\(buffer) (\(bufferFrames) frames) do not make a positive period and a buffer of at least two periods")
        }
        return (periodFrames, bufferFrames)
    }

    /// The format of a device that takes the request exactly: what stands in for the real one
    /// while a device is waited for.
    func exactFormat(device: String, direction: AudioDirection) throws(AudioDeviceError) -> AudioStreamFormat {
        try checkRateAndChannels(device: device, direction: direction)
        let (periodFrames, bufferFrames) = try frames(atRate: sampleRate, device: device, direction: direction)
        return AudioStreamFormat(sampleFormat: sampleFormat, sampleRate: sampleRate, channels: channels,
                                 periodFrames: periodFrames, bufferFrames: bufferFrames)
    }
}
