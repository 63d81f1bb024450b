import HotwordCore

/// Inverted dropout: in training each value is zeroed with probability `rate` and the rest scaled
/// by 1/(1 − rate); evaluation passes values through. The mask of element e in training pass r
/// is a hash of (seed, r, e), so it is reproducible and needs no sequential generator.
final class DropoutOperation: FramewiseOperation {
    let rate: Float
    let channels: Int
    let seed: UInt64
    private let output = FloatBuffer(), mask = FloatBuffer(), inputGradient = FloatBuffer()

    init(rate: Float, channels: Int, seed: UInt64) {
        self.rate = rate
        self.channels = channels
        self.seed = seed
    }

    var outputChannels: Int { channels }
    var parameters: [Parameter] { [] }

    func forward(_ input: SequenceView, outputFrames: Int, context: ForwardContext) -> SequenceView {
        precondition(input.frames == outputFrames, "dropout maps frames one to one")
        guard context.training else { return input }
        let count = input.count, keep = 1 - rate, threshold = UInt64(Double(rate) * 0x1p24)
        let y = output.reserve(count), m = mask.reserve(count), x = input.pointer
        var roundState = seed ^ (context.round &* 0xA24B_AED4_963E_E407)
        let roundKey = SeededRandom.splitMix(&roundState)
        context.parallelism.forEachPart(count: count, minimumPerPart: 16_384) { _, range in
            for e in range {
                var state = roundKey ^ UInt64(e)
                let kept = SeededRandom.splitMix(&state) >> 40 >= threshold
                m[e] = kept ? 1 / keep : 0
                y[e] = x[e] * m[e]
            }
        }
        return SequenceView(pointer: y, batch: input.batch, frames: input.frames, channels: channels)
    }

    func backward(_ outputGradient: SequenceView, needsInputGradient: Bool, parallelism: Parallelism) -> SequenceView? {
        guard needsInputGradient else { return nil }
        let count = outputGradient.count, dx = inputGradient.reserve(count), dy = outputGradient.pointer, m = mask.pointer
        parallelism.forEachPart(count: count, minimumPerPart: 16_384) { _, range in
            for e in range { dx[e] = dy[e] * m[e] }
        }
        return SequenceView(pointer: dx, batch: outputGradient.batch, frames: outputGradient.frames, channels: channels)
    }
}
