import Foundation

/// Tells speech from background, 10 ms at a time, by energy against a tracked noise floor: a
/// frame is speech when it is `marginDecibels` above the floor and above `minimumDecibels`. The
/// floor follows quieter frames at once and louder ones slowly (a time constant of about 5 s),
/// so it settles on the background between words and survives seconds of speech.
public struct VoiceActivityDetector: Sendable {
    /// Samples per frame: 10 ms at 16 kHz.
    public static let frameLength = 160
    /// How far the floor moves towards a louder frame, per frame.
    private static let floorRise: Float = 0.002

    public var marginDecibels: Float
    public var minimumDecibels: Float
    /// The background level in dB relative to full scale; nil before the first frame.
    public private(set) var noiseFloorDecibels: Float?

    private var frameEnergy: Float = 0
    private var frameFill = 0

    public init(marginDecibels: Float = 9, minimumDecibels: Float = -55) {
        self.marginDecibels = marginDecibels
        self.minimumDecibels = minimumDecibels
    }

    /// Feeds samples; calls `frame` with each completed frame's verdict (true: speech) and the
    /// index in `samples` just after that frame's last sample.
    public mutating func process(_ samples: UnsafeBufferPointer<Float>, _ frame: (_ isSpeech: Bool, _ end: Int) -> Void) {
        for index in samples.indices {
            let sample = samples[index]
            frameEnergy += sample * sample
            frameFill += 1
            guard frameFill == Self.frameLength else { continue }
            let decibels = 10 * log10(max(frameEnergy / Float(Self.frameLength), 1e-12))
            let floor = noiseFloorDecibels ?? decibels
            frame(decibels > floor + marginDecibels && decibels > minimumDecibels, index + 1)
            noiseFloorDecibels = decibels < floor ? decibels : floor + Self.floorRise * (decibels - floor)
            frameEnergy = 0
            frameFill = 0
        }
    }

    /// Drops a partly filled frame, so the next frame starts with the next sample (the noise
    /// floor is kept).
    public mutating func restartFrame() {
        frameEnergy = 0
        frameFill = 0
    }
}
