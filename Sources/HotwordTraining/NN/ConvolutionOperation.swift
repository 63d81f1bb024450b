/// A full convolution over time (a dense layer is the case kernel 1, stride 1) as one matrix
/// product: the windows of all outputs of the batch are gathered into rows ("im2col", skipped
/// when the input already is that matrix) and multiplied by the `[outputs][kernel·inputs]` weights.
///
/// Output i of an input of L frames reads frames start + i·stride + j·dilation (j < kernel),
/// start = L − ((n − 1)·stride + receptiveField): the last output reads the last frame.
final class ConvolutionOperation: TemporalOperation {
    let inputs: Int, outputs: Int, kernel: Int, dilation: Int, stride: Int
    let weights: Parameter
    let bias: Parameter?
    private let output = FloatBuffer(), columns = FloatBuffer(), columnGradient = FloatBuffer()
    private let inputGradient = FloatBuffer(), scratch = FloatBuffer()
    /// The rows multiplied by the weights in the last forward pass (the input itself, or `columns`).
    private var rows: UnsafeMutablePointer<Float>?
    private var lastInput: SequenceView?
    private var lastStart = 0, lastOutputFrames = 0

    init(inputs: Int, outputs: Int, kernel: Int, dilation: Int, stride: Int, weights: [Float], bias: [Float]?) {
        self.inputs = inputs
        self.outputs = outputs
        self.kernel = kernel
        self.dilation = dilation
        self.stride = stride
        self.weights = Parameter(weights, decays: true)
        self.bias = bias.map { Parameter($0, decays: false) }
    }

    var outputChannels: Int { outputs }
    private var rowWidth: Int { kernel * inputs }

    /// The input is already the row matrix when every output reads exactly one whole frame.
    private func readsInputDirectly(_ input: SequenceView, outputFrames: Int) -> Bool {
        kernel == 1 && stride == 1 && input.frames == outputFrames
    }

    func forward(_ input: SequenceView, outputFrames: Int, context: ForwardContext) -> SequenceView {
        let batch = input.batch, rowCount = batch * outputFrames, width = rowWidth
        let start = firstInputFrame(of: input, outputFrames: outputFrames)
        lastInput = input
        lastStart = start
        lastOutputFrames = outputFrames
        let matrix: UnsafeMutablePointer<Float>
        if readsInputDirectly(input, outputFrames: outputFrames) {
            matrix = input.pointer
        } else {
            matrix = columns.reserve(rowCount * width)
            let (source, frames, channels, kernel, dilation, stride) = (input.pointer, input.frames, inputs, kernel, dilation, stride)
            context.parallelism.forEachPart(count: rowCount, minimumPerPart: 64) { _, range in
                for row in range {
                    let b = row / outputFrames, i = row % outputFrames
                    let firstFrame = source + (b * frames + start + i * stride) * channels
                    for j in 0..<kernel {
                        (matrix + row * width + j * channels).update(from: firstFrame + j * dilation * channels, count: channels)
                    }
                }
            }
        }
        rows = matrix
        let out = output.reserve(rowCount * outputs)
        if let bias {
            TrainingKernels.broadcastRows(bias.values.pointer, rows: rowCount, columns: outputs, into: out)
        }
        BLAS.gemm(context.parallelism, transposeA: false, transposeB: true, m: rowCount, n: outputs, k: width,
                  a: matrix, lda: width, b: weights.values.pointer, ldb: width, beta: bias == nil ? 0 : 1, c: out, ldc: outputs)
        return SequenceView(pointer: out, batch: batch, frames: outputFrames, channels: outputs)
    }

    func backward(_ outputGradient: SequenceView, needsInputGradient: Bool, parallelism: Parallelism) -> SequenceView? {
        guard let input = lastInput, let matrix = rows else { return nil }
        let rowCount = outputGradient.rows, width = rowWidth, dy = outputGradient.pointer
        BLAS.gemm(parallelism, transposeA: true, transposeB: false, m: outputs, n: width, k: rowCount,
                  a: dy, lda: outputs, b: matrix, ldb: width, beta: 1, c: weights.gradient.pointer, ldc: width)
        if let bias {
            TrainingKernels.addColumnSums(dy, rows: rowCount, columns: outputs, into: bias.gradient.pointer,
                                          scratch: scratch, parallelism)
        }
        guard needsInputGradient else { return nil }
        let dx = inputGradient.reserve(input.count)
        let gradientView = SequenceView(pointer: dx, batch: input.batch, frames: input.frames, channels: inputs)
        if readsInputDirectly(input, outputFrames: lastOutputFrames) {
            BLAS.gemm(parallelism, transposeA: false, transposeB: false, m: rowCount, n: inputs, k: outputs,
                      a: dy, lda: outputs, b: weights.values.pointer, ldb: inputs, beta: 0, c: dx, ldc: inputs)
            return gradientView
        }
        let dColumns = columnGradient.reserve(rowCount * width)
        BLAS.gemm(parallelism, transposeA: false, transposeB: false, m: rowCount, n: width, k: outputs,
                  a: dy, lda: outputs, b: weights.values.pointer, ldb: width, beta: 0, c: dColumns, ldc: width)
        // Scatter the rows back onto the frames they were gathered from; batch items never overlap.
        let (frames, channels, outputFrames, start) = (input.frames, inputs, lastOutputFrames, lastStart)
        let (kernel, dilation, stride) = (kernel, dilation, stride)
        parallelism.forEachPart(count: input.batch, minimumPerPart: 4) { _, items in
            for b in items {
                let itemGradient = dx + b * frames * channels
                itemGradient.update(repeating: 0, count: frames * channels)
                for i in 0..<outputFrames {
                    let row = dColumns + (b * outputFrames + i) * width
                    for j in 0..<kernel {
                        TrainingKernels.add(row + j * channels, into: itemGradient + (start + i * stride + j * dilation) * channels,
                                            count: channels)
                    }
                }
            }
        }
        return gradientView
    }
}
