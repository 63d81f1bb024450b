import Foundation
import HotwordCore

/// One recording of the wake word offered for a personal model, measured and trimmed.
public struct Take: Sendable {
    /// The speech with up to `TakeRules.margin` of the recording around it, 16 kHz mono.
    public var samples: [Float]
    /// How long the speech lasts, in seconds.
    public var speechSeconds: Double
    /// RMS level over the speech, dB relative to full scale.
    public var levelDecibels: Float
    /// Speech level above the background (the quietest tenth of 10 ms blocks), dB.
    public var signalToNoiseDecibels: Float
}

/// Why a take cannot be used; each says what to do instead.
public enum TakeProblem: Error, Sendable, Equatable, CustomStringConvertible {
    case noSpeech
    case tooQuiet(levelDecibels: Float, minimum: Float)
    case tooNoisy(signalToNoise: Float, minimum: Float)
    case clipped(samples: Int)
    case tooShort(seconds: Double, minimum: Double)
    case tooLong(seconds: Double, maximum: Double)
    /// Speech lasting far longer or shorter than the median of the other takes.
    case unlikeOthers(seconds: Double, median: Double)

    public var description: String {
        switch self {
        case .noSpeech:
            "no speech heard: speak closer to the microphone (check it with `hotword record test.wav --seconds 3`)"
        case .tooQuiet(let level, let minimum):
            "too quiet (speech at \(decibels(level)) dBFS, at least \(decibels(minimum)) needed): speak up, move closer or raise the input gain (alsamixer)"
        case .tooNoisy(let snr, let minimum):
            "too noisy (speech only \(decibels(snr)) dB above the background, \(decibels(minimum)) needed): move closer or somewhere quieter"
        case .clipped(let samples):
            "clipped (\(samples) samples at full scale): speak a little softer or lower the input gain"
        case .tooShort(let seconds, let minimum):
            "too short (\(seconds1(seconds)) s of speech, at least \(seconds1(minimum)) s): say the whole wake word"
        case .tooLong(let seconds, let maximum):
            "too long (\(seconds1(seconds)) s of speech, at most \(seconds1(maximum)) s): say only the wake word, at your usual pace"
        case .unlikeOthers(let seconds, let median):
            "much \(seconds > median ? "longer" : "shorter") than your other takes (\(seconds1(seconds)) s against \(seconds1(median)) s): say it the way you usually do"
        }
    }
}

private func decibels(_ value: Float) -> String { String(format: "%.0f", value) }
private func seconds1(_ value: Double) -> String { String(format: "%.2f", value) }

/// What makes a usable take: loud and clean enough, not clipped, a plausible length, and about
/// as long as the user's other takes (a take twice as long usually holds a cough or another
/// word; half as long, a cut-off word).
public struct TakeRules: Sendable, Hashable {
    public var minimumLevelDecibels: Float = -45
    public var minimumSignalToNoise: Float = 12
    public var minimumSeconds = 0.25
    /// The network hears 1.83 s; a longer phrase is heard only in part.
    public var maximumSeconds = 1.8
    /// A take lasting more than this factor longer (or shorter) than the median of at least two
    /// other takes is rejected.
    public var lengthRatio = 1.6
    /// Samples at or above this magnitude count as clipped…
    public var clipLevel: Float = 0.99
    /// …and a take with more than this share of them (and at least `minimumClippedSamples`) is rejected.
    public var maximumClippedShare = 0.001
    public var minimumClippedSamples = 5
    /// Recording kept before and after the speech, seconds.
    public var margin = 0.3

    public init() {}

    /// Measures `samples` (16 kHz mono) and trims them to the speech plus `margin`; throws the
    /// first problem found. `others` are the speech durations of the user's other takes.
    public func check(_ samples: [Float], against others: [Double] = [], sampleRate: Int = AudioFormat.sampleRate) throws(TakeProblem) -> Take {
        guard let bounds = SpeechBounds.find(in: samples) else { throw .noSpeech }
        let speech = samples[bounds.start..<bounds.end]
        let seconds = Double(bounds.length) / Double(sampleRate)
        let level = 20 * log10(max(Mixing.rms(speech), 1e-9))
        if level < minimumLevelDecibels { throw .tooQuiet(levelDecibels: level, minimum: minimumLevelDecibels) }
        let snr = level - Self.backgroundDecibels(samples)
        if snr < minimumSignalToNoise { throw .tooNoisy(signalToNoise: snr, minimum: minimumSignalToNoise) }
        let clipped = speech.reduce(0) { $0 + (abs($1) >= clipLevel ? 1 : 0) }
        if clipped >= max(minimumClippedSamples, Int(maximumClippedShare * Double(speech.count))) { throw .clipped(samples: clipped) }
        if seconds < minimumSeconds { throw .tooShort(seconds: seconds, minimum: minimumSeconds) }
        if seconds > maximumSeconds { throw .tooLong(seconds: seconds, maximum: maximumSeconds) }
        if others.count >= 2 {
            let median = Self.median(others)
            if seconds > median * lengthRatio || seconds < median / lengthRatio { throw .unlikeOthers(seconds: seconds, median: median) }
        }
        let kept = Int(margin * Double(sampleRate))
        return Take(samples: Array(samples[max(0, bounds.start - kept)..<min(samples.count, bounds.end + kept)]),
                    speechSeconds: seconds, levelDecibels: level, signalToNoiseDecibels: snr)
    }

    /// The level of the quietest tenth of 10 ms blocks, dBFS: the background, as `SpeechBounds` sees it.
    static func backgroundDecibels(_ samples: [Float]) -> Float {
        let block = SpeechBounds.blockLength
        let levels = stride(from: 0, to: samples.count - block + 1, by: block).map { start in
            20 * log10(max(Mixing.rms(samples[start..<(start + block)]), 1e-6))
        }.sorted()
        return levels.isEmpty ? -120 : levels[levels.count / 10]
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
