import Foundation

/// A second network as the second stage: a detection is kept where `model` (trained for the same
/// keyword on another front end, e.g. the speech embedding) scores at least `threshold` somewhere in
/// the window around it. Two front ends err on different audio, so together they wake less often than
/// either alone at the same misses; and the second network runs only on the few seconds around a
/// detection, so it costs next to nothing.
public struct ModelCheck: DetectionCheck {
    public let model: KeywordModel
    public let threshold: Float

    /// `model` is validated here. Every keyword it hears counts: give it the first stage's keyword alone.
    public init(model: KeywordModel, threshold: Float) throws(DetectorError) {
        _ = try Detector(models: [model])
        self.model = model
        self.threshold = threshold
    }

    /// The highest smoothed score `detector` (a reset one, hearing `model`) gives anywhere in `window`.
    private static func peakScore(in window: [Float], heardBy detector: Detector) -> Float {
        detector.reset()
        var peak: Float = 0
        detector.onScore = { peak = max(peak, $0.smoothed) }
        _ = detector.process(window)
        return peak
    }

    /// The highest score `model` gives anywhere in each window, each heard from its start.
    public func peakScores(in windows: [[Float]]) -> [Float] {
        var peaks = [Float](repeating: 0, count: windows.count)
        peaks.withUnsafeMutableBufferPointer { buffer in
            let results = Peaks(buffer: buffer), lanes = min(windows.count, ProcessInfo.processInfo.activeProcessorCount)
            // Windows are independent: a detector a lane, each lane its own indices.
            DispatchQueue.concurrentPerform(iterations: lanes) { lane in
                let detector = try! Detector(models: [model])  // validated in init
                for index in stride(from: lane, to: windows.count, by: lanes) {
                    results.buffer[index] = Self.peakScore(in: windows[index], heardBy: detector)
                }
            }
        }
        return peaks
    }

    public func accepts(_ windows: [[Float]]) throws -> [Bool] {
        peakScores(in: windows).map { $0 >= threshold }
    }
}

private struct Peaks: @unchecked Sendable {  // @unchecked: no two threads write the same index
    let buffer: UnsafeMutableBufferPointer<Float>
}
