import Foundation

/// Where a fusion finds the companion's scores: each output of the companion is announced by its
/// index (`LogitFusion.companion(at:index:emit:)`) and its scores are asked for only where a
/// fused score needs them — the cascade's companion computes them then (`CompanionHead`).
protocol CompanionScores: AnyObject {
    /// The companion's scores at output `index`, valid until the next call. Indices asked for
    /// never decrease.
    func scores(at index: Int) -> UnsafeBufferPointer<Float>
    /// Outputs before `index` will not be asked for again.
    func forget(before index: Int)
    func reset()
}

/// Merges the scores of a model's two networks (`CompanionNetwork`), which run on different front
/// ends at different rates, into one stream at the first network's rate: each first-network score
/// at time t meets the companion's latest score at or before t, and the two become
/// σ((1 − w)·logit(first) + w·logit(companion)).
///
/// The two networks hear each chunk of audio one after the other, so either may be ahead. A first
/// score waits until the companion has scored past its time — only then is its partner settled —
/// so the result does not depend on how the audio was chunked. Until the companion's first score
/// its probability counts as 0: no detection before both networks have heard enough; the same
/// where a `gate` was closed at the first score's time (`CompanionGate`), and then the partner's
/// scores are never asked for. Buffers keep their capacity; nothing is allocated once they have
/// grown to the lag's size.
struct LogitFusion {
    let weight: Float
    let width: Int
    let companionScores: any CompanionScores
    private var gate: GateWindow?
    private var pendingTimes: [Double] = []
    private var pendingScores: [Float] = []
    /// Whether the gate was open at each pending score (always, without a gate).
    private var pendingOpen: [Bool] = []
    private var companionTimes: [Double] = []
    private var companionIndices: [Int] = []
    private var fused: [Float]
    /// First-network outputs heard, and those at which the gate was open.
    private(set) var outputs = 0
    private(set) var openOutputs = 0

    /// Scores at or beyond these are clamped, so a network's 0 or 1 stays finite in logits.
    static let probabilityFloor: Float = 1e-7

    init(weight: Float, width: Int, gate: CompanionGate?, companionScores: any CompanionScores) {
        self.weight = weight
        self.width = width
        self.gate = gate.map(GateWindow.init)
        self.companionScores = companionScores
        fused = [Float](repeating: 0, count: width)
    }

    static func logit(_ p: Float) -> Float { LogOdds.logit(p, margin: probabilityFloor) }

    static func fuse(first: Float, companion: Float, weight: Float) -> Float {
        let z = (1 - weight) * logit(first) + weight * logit(companion)
        return LogOdds.sigmoid(z)
    }

    /// A score of the first network, at `time`; `emit` gets the fused scores and the first network's.
    mutating func first(_ scores: UnsafeBufferPointer<Float>, at time: Double,
                        emit: (Double, UnsafeBufferPointer<Float>, UnsafeBufferPointer<Float>) -> Void) {
        var open = true
        if gate != nil {
            var highest = -Float.infinity
            for k in 0..<width { highest = max(highest, scores[k]) }
            open = gate!.observe(maximum: highest, at: time)
        }
        outputs += 1
        if open { openOutputs += 1 }
        pendingTimes.append(time)
        pendingScores.append(contentsOf: scores)
        pendingOpen.append(open)
        drain(emit)
    }

    /// An output of the companion network, at `time`: its scores are `companionScores`' at `index`.
    mutating func companion(at time: Double, index: Int,
                            emit: (Double, UnsafeBufferPointer<Float>, UnsafeBufferPointer<Float>) -> Void) {
        companionTimes.append(time)
        companionIndices.append(index)
        drain(emit)
    }

    /// Emits every waiting first score whose companion partner is settled, in time order.
    private mutating func drain(_ emit: (Double, UnsafeBufferPointer<Float>, UnsafeBufferPointer<Float>) -> Void) {
        var done = 0
        while done < pendingTimes.count, let latest = companionTimes.last, latest > pendingTimes[done] {
            let time = pendingTimes[done]
            // Keep the companion's last output at or before `time` at the front; later ones stay.
            var stale = 0
            while stale + 1 < companionTimes.count, companionTimes[stale + 1] <= time { stale += 1 }
            if stale > 0 {
                companionTimes.removeFirst(stale)
                companionIndices.removeFirst(stale)
                companionScores.forget(before: companionIndices[0])
            }
            let partner = companionTimes[0] <= time && pendingOpen[done] ? companionScores.scores(at: companionIndices[0]) : nil
            pendingScores.withUnsafeBufferPointer { all in
                let first = UnsafeBufferPointer(rebasing: all[(done * width)..<((done + 1) * width)])
                for k in 0..<width {
                    fused[k] = Self.fuse(first: first[k], companion: partner?[k] ?? 0, weight: weight)
                }
                fused.withUnsafeBufferPointer { emit(time, $0, first) }
            }
            done += 1
        }
        if done > 0 {
            pendingTimes.removeFirst(done)
            pendingScores.removeFirst(done * width)
            pendingOpen.removeFirst(done)
        }
    }

    mutating func reset() {
        pendingTimes.removeAll(keepingCapacity: true)
        pendingScores.removeAll(keepingCapacity: true)
        pendingOpen.removeAll(keepingCapacity: true)
        companionTimes.removeAll(keepingCapacity: true)
        companionIndices.removeAll(keepingCapacity: true)
        gate?.reset()
        outputs = 0
        openOutputs = 0
        companionScores.reset()
    }
}

/// A companion's scores kept as it computes them, for a companion that runs on every frame of
/// its front end (one without the speech embedding): the outputs not yet forgotten, oldest
/// first. The buffer grows to the lag between the networks and then stays.
final class StoredCompanionScores: CompanionScores {
    let width: Int
    private var values: UnsafeMutablePointer<Float>
    private var capacity: Int
    /// Outputs held, and the index of the first of them.
    private var held = 0
    private var firstIndex = 0

    init(width: Int) {
        self.width = width
        capacity = 16 * width
        values = .allocate(capacity: capacity)
    }

    deinit { values.deallocate() }

    /// Keeps the companion's next output; its index.
    func append(_ scores: UnsafeBufferPointer<Float>) -> Int {
        if (held + 1) * width > capacity {
            let larger = UnsafeMutablePointer<Float>.allocate(capacity: 2 * capacity)
            larger.update(from: values, count: held * width)
            values.deallocate()
            values = larger
            capacity *= 2
        }
        (values + held * width).update(from: scores.baseAddress!, count: width)
        held += 1
        return firstIndex + held - 1
    }

    func scores(at index: Int) -> UnsafeBufferPointer<Float> {
        UnsafeBufferPointer(start: values + (index - firstIndex) * width, count: width)
    }

    func forget(before index: Int) {
        let dropped = min(max(index - firstIndex, 0), held)
        guard dropped > 0 else { return }
        values.update(from: values + dropped * width, count: (held - dropped) * width)
        held -= dropped
        firstIndex += dropped
    }

    func reset() {
        held = 0
        firstIndex = 0
    }
}
