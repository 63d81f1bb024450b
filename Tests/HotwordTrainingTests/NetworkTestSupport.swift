import HotwordCore
import HotwordTraining

/// Random data for network tests, from the library's own seeded generator.
enum NetworkTestData {
    static func values(_ count: Int, seed: UInt64, scale: Float = 1, offset: Float = 0) -> [Float] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { _ in offset + scale * random.normal() }
    }

    static func windows(count: Int, frames: Int, features: Int, seed: UInt64, scale: Float = 1, offset: Float = 0) -> WindowBatch {
        WindowBatch(values: values(count * frames * features, seed: seed, scale: scale, offset: offset), count: count, frames: frames)
    }

    /// Window length ≥ `minimum` that ends on a frame where the streaming network emits.
    static func alignedFrames(atLeast minimum: Int, stride: Int) -> Int { (minimum + stride - 1) / stride * stride }

    /// Windows where class 1 has a bump in the first `bumpChannels` features over the last `bumpFrames` frames.
    static func separable(count: Int, frames: Int, features: Int, seed: UInt64) -> (windows: WindowBatch, labels: [Float]) {
        var random = SeededRandom(seed: seed)
        var values: [Float] = []
        var labels: [Float] = []
        for _ in 0..<count {
            let positive = random.uniform() < 0.5
            labels.append(positive ? 1 : 0)
            for t in 0..<frames {
                for f in 0..<features {
                    let bump: Float = positive && f < features / 2 && t >= frames - 8 ? 1.5 : 0
                    values.append(0.5 * random.normal() + bump)
                }
            }
        }
        return (WindowBatch(values: values, count: count, frames: frames), labels)
    }
}
