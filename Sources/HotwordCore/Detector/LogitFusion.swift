import Foundation

/// Merges the scores of a model's two networks (`CompanionNetwork`), which run on different front
/// ends at different rates, into one stream at the first network's rate: each first-network score
/// at time t meets the companion's latest score at or before t, and the two become
/// σ((1 − w)·logit(first) + w·logit(companion)).
///
/// The two networks hear each chunk of audio one after the other, so either may be ahead. A first
/// score waits until the companion has scored past its time — only then is its partner settled —
/// so the result does not depend on how the audio was chunked. Until the companion's first score
/// its probability counts as 0: no detection before both networks have heard enough.
/// Buffers keep their capacity; nothing is allocated once they have grown to the lag's size.
struct LogitFusion {
    let weight: Float
    let width: Int
    private var pendingTimes: [Double] = []
    private var pendingScores: [Float] = []
    private var companionTimes: [Double] = []
    private var companionScores: [Float] = []
    private var fused: [Float]

    /// Scores at or beyond these are clamped, so a network's 0 or 1 stays finite in logits.
    static let probabilityFloor: Float = 1e-7

    init(weight: Float, width: Int) {
        self.weight = weight
        self.width = width
        fused = [Float](repeating: 0, count: width)
    }

    static func logit(_ p: Float) -> Float {
        let clamped = min(max(p, probabilityFloor), 1 - probabilityFloor)
        return log(clamped / (1 - clamped))
    }

    /// A score of the first network, at `time`.
    mutating func first(_ scores: UnsafeBufferPointer<Float>, at time: Double, emit: (Double, UnsafeBufferPointer<Float>) -> Void) {
        pendingTimes.append(time)
        pendingScores.append(contentsOf: scores)
        drain(emit)
    }

    /// A score of the companion network, at `time`.
    mutating func companion(_ scores: UnsafeBufferPointer<Float>, at time: Double, emit: (Double, UnsafeBufferPointer<Float>) -> Void) {
        companionTimes.append(time)
        companionScores.append(contentsOf: scores)
        drain(emit)
    }

    /// Emits every waiting first score whose companion partner is settled, in time order.
    private mutating func drain(_ emit: (Double, UnsafeBufferPointer<Float>) -> Void) {
        var done = 0
        while done < pendingTimes.count, let latest = companionTimes.last, latest > pendingTimes[done] {
            let time = pendingTimes[done]
            // Keep the companion's last score at or before `time` at the front; later ones stay.
            var stale = 0
            while stale + 1 < companionTimes.count, companionTimes[stale + 1] <= time { stale += 1 }
            if stale > 0 {
                companionTimes.removeFirst(stale)
                companionScores.removeFirst(stale * width)
            }
            let heard = companionTimes[0] <= time
            for k in 0..<width {
                let partner = heard ? companionScores[k] : 0
                let z = (1 - weight) * Self.logit(pendingScores[done * width + k]) + weight * Self.logit(partner)
                fused[k] = 1 / (1 + exp(-z))
            }
            fused.withUnsafeBufferPointer { emit(time, $0) }
            done += 1
        }
        if done > 0 {
            pendingTimes.removeFirst(done)
            pendingScores.removeFirst(done * width)
        }
    }

    mutating func reset() {
        pendingTimes.removeAll(keepingCapacity: true)
        pendingScores.removeAll(keepingCapacity: true)
        companionTimes.removeAll(keepingCapacity: true)
        companionScores.removeAll(keepingCapacity: true)
    }
}
