import Foundation
import HotwordCore

/// Hand-built models on real features: a "tone" keyword whose score rises when one mel band
/// (around 1 kHz) stands far above the average of the others.
public enum ToneModels {
    public static let frontend = FrontendConfig()

    public static func band(of frequency: Double) -> Int {
        func mel(_ f: Double) -> Double { 2595 * log10(1 + f / 700) }
        let low = mel(Double(frontend.lowFrequency)), high = mel(Double(frontend.highFrequency))
        return Int(((mel(frequency) - low) / (high - low) * Double(frontend.melBands + 1)).rounded()) - 1
    }

    /// score = σ(gain · (band − mean of the others) − bias), one keyword per tone.
    public static func model(keyword: String, frequency: Double, detection: DetectionDefaults = DetectionDefaults()) -> KeywordModel {
        let bands = frontend.melBands, target = band(of: frequency)
        var weights = [Float](repeating: -0.25 / Float(bands - 1), count: bands)
        weights[target] = 0.25
        return KeywordModel(
            keywords: [keyword], frontend: frontend,
            layers: [
                .conv1D(Conv1DLayer(inputs: bands, outputs: 1, kernelSize: 3, stride: 2, activation: .linear,
                                    weights: weights + weights + weights, bias: [0])),
                .dense(DenseLayer(inputs: 1, outputs: 1, activation: .sigmoid, weights: [1], bias: [-5])),
            ],
            detection: detection)
    }

    /// Silence with tone bursts of `length` seconds starting at `starts`, over faint noise.
    public static func signal(seconds: Double, tones: [(start: Double, frequency: Double)], length: Double = 0.4,
                       amplitude: Float = 0.3) -> [Float] {
        var rng = SeededGenerator(seed: 3)
        var samples = (0..<Int(seconds * 16_000)).map { _ in Float.random(in: -0.001...0.001, using: &rng) }
        for tone in tones {
            let first = Int(tone.start * 16_000)
            for n in first..<min(first + Int(length * 16_000), samples.count) {
                samples[n] += amplitude * Float(sin(2 * Double.pi * tone.frequency * Double(n) / 16_000))
            }
        }
        return samples
    }
}

/// A second stage for tone keywords (`DetectionCheck`): the tone model stands in for the first
/// stage, and this check for pocketsphinx spotting the whole phrase. Agrees where the window holds a tone at `frequency` (Goertzel's power over 50 ms blocks);
/// keeps every window it was asked about. Throws where `failing`.
public final class ToneCheck: DetectionCheck, @unchecked Sendable {  // @unchecked: used from one thread at a time in tests
    public let frequency: Double
    public let failing: Bool
    public private(set) var windows: [[Float]] = []

    public struct Failure: Error, CustomStringConvertible {
        public var description: String { "the check's engine is gone" }
    }

    public init(frequency: Double = 1_500, failing: Bool = false) {
        self.frequency = frequency
        self.failing = failing
    }

    public func accepts(_ windows: [[Float]]) throws -> [Bool] {
        self.windows += windows
        if failing { throw Failure() }
        return windows.map(holdsTone)
    }

    private func holdsTone(_ window: [Float]) -> Bool {
        let block = 800, coefficient = 2 * cos(2 * Double.pi * frequency / 16_000)
        return stride(from: 0, to: window.count - block + 1, by: block).contains { start in
            var previous = 0.0, beforeThat = 0.0
            for sample in window[start..<(start + block)] {
                (previous, beforeThat) = (Double(sample) + coefficient * previous - beforeThat, previous)
            }
            let power = previous * previous + beforeThat * beforeThat - coefficient * previous * beforeThat
            // A 0.3 tone over a whole block has an amplitude of 0.3 · 800 / 2 = 120.
            return power.squareRoot() > 40
        }
    }
}
