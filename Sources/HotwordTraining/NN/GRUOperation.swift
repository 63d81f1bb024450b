import Foundation

/// A GRU over the whole input sequence, state zero before the first frame, with backpropagation
/// through time. Gate order and equations are PyTorch's, as in `HotwordCore.GRULayer`:
/// the input projections of all frames are one matrix product; the recurrence is one small
/// product per frame.
final class GRUOperation: Operation {
    let inputs: Int, hidden: Int
    let inputWeights: Parameter, recurrentWeights: Parameter, inputBias: Parameter, recurrentBias: Parameter
    /// Per frame r, z, n after their nonlinearities, `[batch][frames][3·hidden]`.
    private let gates = FloatBuffer()
    /// Per frame U_n·h + c_n, needed again by the reset gate's gradient.
    private let recurrentCandidate = FloatBuffer()
    private let states = FloatBuffer(), recurrentProducts = FloatBuffer()
    private let inputGateGradient = FloatBuffer(), recurrentGateGradient = FloatBuffer()
    private let stateGradient = FloatBuffer(), inputGradient = FloatBuffer(), scratch = FloatBuffer()
    private var lastInput: SequenceView?

    init(inputs: Int, hidden: Int, inputWeights: [Float], recurrentWeights: [Float]) {
        self.inputs = inputs
        self.hidden = hidden
        self.inputWeights = Parameter(inputWeights, decays: true)
        self.recurrentWeights = Parameter(recurrentWeights, decays: true)
        inputBias = Parameter([Float](repeating: 0, count: 3 * hidden), decays: false)
        recurrentBias = Parameter([Float](repeating: 0, count: 3 * hidden), decays: false)
    }

    var outputChannels: Int { hidden }
    var parameters: [Parameter] { [inputWeights, recurrentWeights, inputBias, recurrentBias] }

    func inputFrames(forOutputs outputs: Int?) -> Int? { nil }
    func outputFrames(inputFrames frames: Int) -> Int { frames }

    func forward(_ input: SequenceView, outputFrames: Int, context: ForwardContext) -> SequenceView {
        precondition(outputFrames == input.frames, "a GRU runs over its whole input")
        lastInput = input
        let batch = input.batch, frames = input.frames, hidden = hidden, width = 3 * hidden
        let g = gates.reserve(input.rows * width), h = states.reserve(input.rows * hidden)
        let candidate = recurrentCandidate.reserve(input.rows * hidden), gh = recurrentProducts.reserve(batch * width)
        TrainingKernels.broadcastRows(inputBias.values.pointer, rows: input.rows, columns: width, into: g)
        BLAS.gemm(context.parallelism, transposeA: false, transposeB: true, m: input.rows, n: width, k: inputs,
                  a: input.pointer, lda: inputs, b: inputWeights.values.pointer, ldb: inputs, beta: 1, c: g, ldc: width)
        for t in 0..<frames {
            TrainingKernels.broadcastRows(recurrentBias.values.pointer, rows: batch, columns: width, into: gh)
            if t > 0 {
                BLAS.gemm(context.parallelism, transposeA: false, transposeB: true, m: batch, n: width, k: hidden,
                          a: h + (t - 1) * hidden, lda: frames * hidden, b: recurrentWeights.values.pointer, ldb: hidden,
                          beta: 1, c: gh, ldc: width)
            }
            for b in 0..<batch {
                let row = b * frames + t
                let gx = g + row * width, ghb = gh + b * width, state = h + row * hidden
                for i in 0..<hidden {
                    let reset = 1 / (1 + Foundation.exp(-(gx[i] + ghb[i])))
                    let update = 1 / (1 + Foundation.exp(-(gx[hidden + i] + ghb[hidden + i])))
                    let n = Foundation.tanh(gx[2 * hidden + i] + reset * ghb[2 * hidden + i])
                    let previous = t > 0 ? state[i - hidden] : 0
                    gx[i] = reset
                    gx[hidden + i] = update
                    gx[2 * hidden + i] = n
                    candidate[row * hidden + i] = ghb[2 * hidden + i]
                    state[i] = (1 - update) * n + update * previous
                }
            }
        }
        return SequenceView(pointer: h, batch: batch, frames: frames, channels: hidden)
    }

    func backward(_ outputGradient: SequenceView, needsInputGradient: Bool, parallelism: Parallelism) -> SequenceView? {
        guard let input = lastInput else { return nil }
        let batch = input.batch, frames = input.frames, hidden = hidden, width = 3 * hidden
        let g = gates.pointer, h = states.pointer, candidate = recurrentCandidate.pointer, dy = outputGradient.pointer
        let dGx = inputGateGradient.reserve(input.rows * width), dGh = recurrentGateGradient.reserve(input.rows * width)
        let dh = stateGradient.reserve(batch * hidden)
        dh.update(repeating: 0, count: batch * hidden)
        for t in stride(from: frames - 1, through: 0, by: -1) {
            for b in 0..<batch {
                let row = b * frames + t
                let gate = g + row * width, dx = dGx + row * width, dr = dGh + row * width, carried = dh + b * hidden
                for i in 0..<hidden {
                    let total = carried[i] + dy[row * hidden + i]
                    let reset = gate[i], update = gate[hidden + i], n = gate[2 * hidden + i]
                    let previous = t > 0 ? h[(row - 1) * hidden + i] : 0
                    let dCandidate = total * (1 - update) * (1 - n * n)
                    let dReset = dCandidate * candidate[row * hidden + i] * reset * (1 - reset)
                    let dUpdate = total * (previous - n) * update * (1 - update)
                    dx[i] = dReset
                    dx[hidden + i] = dUpdate
                    dx[2 * hidden + i] = dCandidate
                    dr[i] = dReset
                    dr[hidden + i] = dUpdate
                    dr[2 * hidden + i] = dCandidate * reset
                    carried[i] = total * update
                }
            }
            guard t > 0 else { continue }
            BLAS.gemm(parallelism, transposeA: false, transposeB: false, m: batch, n: hidden, k: width,
                      a: dGh + t * width, lda: frames * width, b: recurrentWeights.values.pointer, ldb: hidden,
                      beta: 1, c: dh, ldc: hidden)
            BLAS.gemm(parallelism, transposeA: true, transposeB: false, m: width, n: hidden, k: batch,
                      a: dGh + t * width, lda: frames * width, b: h + (t - 1) * hidden, ldb: frames * hidden,
                      beta: 1, c: recurrentWeights.gradient.pointer, ldc: hidden)
        }
        BLAS.gemm(parallelism, transposeA: true, transposeB: false, m: width, n: inputs, k: input.rows,
                  a: dGx, lda: width, b: input.pointer, ldb: inputs, beta: 1, c: inputWeights.gradient.pointer, ldc: inputs)
        TrainingKernels.addColumnSums(dGx, rows: input.rows, columns: width, into: inputBias.gradient.pointer,
                                      scratch: scratch, parallelism)
        TrainingKernels.addColumnSums(dGh, rows: input.rows, columns: width, into: recurrentBias.gradient.pointer,
                                      scratch: scratch, parallelism)
        guard needsInputGradient else { return nil }
        let dx = inputGradient.reserve(input.count)
        BLAS.gemm(parallelism, transposeA: false, transposeB: false, m: input.rows, n: inputs, k: width,
                  a: dGx, lda: width, b: inputWeights.values.pointer, ldb: inputs, beta: 0, c: dx, ldc: inputs)
        return SequenceView(pointer: dx, batch: batch, frames: frames, channels: inputs)
    }
}
