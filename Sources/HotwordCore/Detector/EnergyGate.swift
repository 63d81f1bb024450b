import Foundation

/// A light voice-activity gate: speech is a 10 ms block clearly louder than the tracked noise
/// floor and above an absolute level. It only labels chunks (silence vs. not); the networks
/// always run, so detections never depend on it.
struct EnergyGate {
    static let blockLength = 160
    /// A block must be this far above the noise floor to count as speech.
    static let marginDecibels: Float = 9
    /// …and above this absolute level (full scale = 0 dB).
    static let minimumDecibels: Float = -60
    /// The floor follows quieter blocks at once and louder ones slowly (≈ 3 s time constant).
    static let floorRise: Float = 0.0033

    private var blockEnergy: Float = 0
    private var blockFill = 0
    private var noiseFloor: Float = -90
    private(set) var lastBlockWasSpeech = false

    /// Feeds samples; returns true if any block completed in them was speech.
    mutating func observe(_ samples: UnsafeBufferPointer<Float>) -> Bool {
        var heardSpeech = false
        for sample in samples {
            blockEnergy += sample * sample
            blockFill += 1
            guard blockFill == Self.blockLength else { continue }
            let decibels = 10 * log10(max(blockEnergy / Float(Self.blockLength), 1e-12))
            lastBlockWasSpeech = decibels > noiseFloor + Self.marginDecibels && decibels > Self.minimumDecibels
            heardSpeech = heardSpeech || lastBlockWasSpeech
            noiseFloor = decibels < noiseFloor ? decibels : noiseFloor + Self.floorRise * (decibels - noiseFloor)
            blockEnergy = 0
            blockFill = 0
        }
        return heardSpeech
    }

    mutating func reset() { self = EnergyGate() }
}
