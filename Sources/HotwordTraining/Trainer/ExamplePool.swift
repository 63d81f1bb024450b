import Foundation
import HotwordCore

/// Labelled feature windows, stored contiguously: window i is
/// `features[i·frames·width ..< (i+1)·frames·width]`.
struct ExamplePool {
    let frames: Int
    let width: Int
    private(set) var features: [Float] = []
    private(set) var labels: [Float] = []
    private(set) var weights: [Float] = []

    init(frames: Int, width: Int) {
        self.frames = frames
        self.width = width
    }

    /// `pools` one after another, in order, copied once into storage of the final size (a
    /// training pool is about 1 GB: growing it by appending copied it several times over).
    init(combining pools: [ExamplePool], frames: Int, width: Int) {
        self.init(frames: frames, width: width)
        features.reserveCapacity(pools.reduce(0) { $0 + $1.features.count })
        let windows = pools.reduce(0) { $0 + $1.count }
        labels.reserveCapacity(windows)
        weights.reserveCapacity(windows)
        for pool in pools { append(contentsOf: pool) }
    }

    var count: Int { labels.count }
    var positives: Int { labels.reduce(0) { $0 + ($1 > 0.5 ? 1 : 0) } }

    mutating func append(_ window: [Float], label: Float, weight: Float = 1) {
        precondition(window.count == frames * width, "window of \(window.count) values, expected \(frames * width)")
        features += window
        labels.append(label)
        weights.append(weight)
    }

    mutating func append(contentsOf other: ExamplePool) {
        features += other.features
        labels += other.labels
        weights += other.weights
    }
}

/// Pools trained or scored on as one, their features shared rather than copied (a pool is about 1 GB):
/// window i is the first pool's, then the second's, and so on. Labels and weights are the set's
/// own, so class balance can weigh them.
struct TrainingSet {
    let pools: [ExamplePool]
    let labels: [Float]
    private(set) var weights: [Float]

    init(_ pools: [ExamplePool]) {
        self.pools = pools
        labels = pools.flatMap(\.labels)
        weights = pools.flatMap(\.weights)
    }

    var count: Int { labels.count }

    /// Scales weights so positives and negatives weigh the same in total.
    mutating func balanceClasses() {
        let positiveWeight = zip(labels, weights).reduce(Float(0)) { $0 + ($1.0 > 0.5 ? $1.1 : 0) }
        let negativeWeight = zip(labels, weights).reduce(Float(0)) { $0 + ($1.0 > 0.5 ? 0 : $1.1) }
        guard positiveWeight > 0, negativeWeight > 0 else { return }
        let total = positiveWeight + negativeWeight
        for i in weights.indices {
            weights[i] *= labels[i] > 0.5 ? total / (2 * positiveWeight) : total / (2 * negativeWeight)
        }
    }

    /// The windows at `indices`, as a batch.
    func batch(_ indices: ArraySlice<Int>) -> (windows: WindowBatch, labels: [Float], weights: [Float]) {
        let (frames, width) = (pools[0].frames, pools[0].width)
        let size = frames * width
        var values = [Float](repeating: 0, count: indices.count * size)
        values.withUnsafeMutableBufferPointer { out in
            for (row, index) in indices.enumerated() {
                var rest = index, part = 0
                while rest >= pools[part].count {
                    rest -= pools[part].count
                    part += 1
                }
                pools[part].features.withUnsafeBufferPointer { all in
                    (out.baseAddress! + row * size).update(from: all.baseAddress! + rest * size, count: size)
                }
            }
        }
        return (WindowBatch(values: values, count: indices.count, frames: frames), indices.map { labels[$0] }, indices.map { weights[$0] })
    }
}
