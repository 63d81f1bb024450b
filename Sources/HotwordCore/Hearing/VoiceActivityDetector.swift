import Foundation

/// Tells speech from background, 10 ms at a time, by energy against a tracked noise floor: a
/// frame is speech when it is `marginDecibels` above the floor and above `minimumDecibels`.
///
/// The floor follows the frame power smoothed over about 100 ms: down at once, up slowly (a time
/// constant of about 5 s), so it settles on the background between words and survives seconds
/// of speech. Smoothing first matters in real noise: a fan, rain or a café has single 10 ms
/// frames several dB under its level, and a floor that dropped to each such dip would take the
/// noise itself for speech — a question would then never end by silence.
public struct VoiceActivityDetector: Sendable {
    /// Samples per frame: 10 ms at 16 kHz.
    public static let frameLength = 160
    /// Per-frame weight of the old value in the power the floor follows (τ = 100 ms).
    private static let backgroundSmoothing = Float(exp(-0.01 / 0.1))
    /// How far the floor moves towards a louder background, per frame (τ ≈ 5 s).
    private static let floorRise: Float = 0.002

    public var marginDecibels: Float
    public var minimumDecibels: Float
    /// The background level in dB relative to full scale; nil before the first frame.
    public private(set) var noiseFloorDecibels: Float?

    /// Smoothed mean-square power of recent frames.
    private var backgroundPower: Float = 0
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
            let power = frameEnergy / Float(Self.frameLength)
            backgroundPower = noiseFloorDecibels == nil
                ? power : Self.backgroundSmoothing * backgroundPower + (1 - Self.backgroundSmoothing) * power
            let background = Self.decibels(backgroundPower)
            let floor = noiseFloorDecibels ?? background
            let level = Self.decibels(power)
            frame(isSpeech(level: level, floor: floor), index + 1)
            noiseFloorDecibels = background < floor ? background : floor + Self.floorRise * (background - floor)
            frameEnergy = 0
            frameFill = 0
        }
    }

    /// Whether `frame` (10 ms) is speech against the background heard so far, without hearing
    /// it (the floor stays); nil before the first frame.
    public func judge(_ frame: UnsafeBufferPointer<Float>) -> Bool? {
        guard let floor = noiseFloorDecibels else { return nil }
        var energy: Float = 0
        for sample in frame { energy += sample * sample }
        return isSpeech(level: Self.decibels(energy / Float(max(frame.count, 1))), floor: floor)
    }

    private func isSpeech(level: Float, floor: Float) -> Bool {
        level > floor + marginDecibels && level > minimumDecibels
    }

    /// Drops a partly filled frame, so the next frame starts with the next sample (the noise
    /// floor is kept).
    public mutating func restartFrame() {
        frameEnergy = 0
        frameFill = 0
    }

    private static func decibels(_ power: Float) -> Float {
        10 * log10(max(power, 1e-12))
    }
}
