/// One filter per channel: y[c] = b[c] + Σ_j W[j][c]·x[start + i·stride + j·dilation][c], with the
/// same end-aligned output positions as `ConvolutionOperation`. Vectorised across channels.
final class DepthwiseOperation: TemporalOperation {
    let channels: Int, kernel: Int, dilation: Int, stride: Int
    let weights: Parameter
    let bias: Parameter?
    private let output = FloatBuffer(), inputGradient = FloatBuffer(), scratch = FloatBuffer()
    private var lastInput: SequenceView?
    private var lastStart = 0, lastOutputFrames = 0

    init(channels: Int, kernel: Int, dilation: Int, stride: Int, weights: [Float], bias: [Float]?) {
        self.channels = channels
        self.kernel = kernel
        self.dilation = dilation
        self.stride = stride
        self.weights = Parameter(weights, decays: true)
        self.bias = bias.map { Parameter($0, decays: false) }
    }

    var outputChannels: Int { channels }

    /// Address of input frame `frame` of item `b`.
    private func frameOffset(_ input: SequenceView, item b: Int, frame: Int) -> Int { (b * input.frames + frame) * channels }

    func forward(_ input: SequenceView, outputFrames: Int, context: ForwardContext) -> SequenceView {
        let start = firstInputFrame(of: input, outputFrames: outputFrames)
        lastInput = input
        lastStart = start
        lastOutputFrames = outputFrames
        let rowCount = input.batch * outputFrames
        let out = output.reserve(rowCount * channels)
        let (w, bias, channels, kernel, dilation, stride) = (weights.values.pointer, bias?.values.pointer, channels, kernel, dilation, stride)
        context.parallelism.forEachPart(count: rowCount, minimumPerPart: 64) { _, range in
            for row in range {
                let b = row / outputFrames, i = row % outputFrames
                let y = out + row * channels
                if let bias { y.update(from: bias, count: channels) } else { y.update(repeating: 0, count: channels) }
                let first = input.pointer + self.frameOffset(input, item: b, frame: start + i * stride)
                for j in 0..<kernel {
                    TrainingKernels.addProduct(w + j * channels, first + j * dilation * channels, into: y, count: channels)
                }
            }
        }
        return SequenceView(pointer: out, batch: input.batch, frames: outputFrames, channels: channels)
    }

    func backward(_ outputGradient: SequenceView, needsInputGradient: Bool, parallelism: Parallelism) -> SequenceView? {
        guard let input = lastInput else { return nil }
        let dy = outputGradient.pointer, rowCount = outputGradient.rows
        let (channels, kernel, dilation, stride, start, outputFrames) = (channels, kernel, dilation, stride, lastStart, lastOutputFrames)
        TrainingKernels.addColumnReductions(rows: rowCount, columns: kernel * channels, into: weights.gradient.pointer,
                                            scratch: scratch, parallelism) { row, partial in
            let b = row / outputFrames, i = row % outputFrames
            let g = dy + row * channels
            let first = input.pointer + self.frameOffset(input, item: b, frame: start + i * stride)
            for j in 0..<kernel {
                TrainingKernels.addProduct(g, first + j * dilation * channels, into: partial + j * channels, count: channels)
            }
        }
        if let bias {
            TrainingKernels.addColumnSums(dy, rows: rowCount, columns: channels, into: bias.gradient.pointer,
                                          scratch: scratch, parallelism)
        }
        guard needsInputGradient else { return nil }
        let dx = inputGradient.reserve(input.count), w = weights.values.pointer
        parallelism.forEachPart(count: input.batch, minimumPerPart: 4) { _, items in
            for b in items {
                let itemGradient = dx + self.frameOffset(input, item: b, frame: 0)
                itemGradient.update(repeating: 0, count: input.frames * channels)
                for i in 0..<outputFrames {
                    let g = dy + (b * outputFrames + i) * channels
                    for j in 0..<kernel {
                        TrainingKernels.addProduct(w + j * channels, g, into: itemGradient + (start + i * stride + j * dilation) * channels,
                                                   count: channels)
                    }
                }
            }
        }
        return SequenceView(pointer: dx, batch: input.batch, frames: input.frames, channels: channels)
    }
}
