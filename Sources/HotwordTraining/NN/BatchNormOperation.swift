import Foundation

/// Batch normalisation per channel over all frames of the batch. Training normalises with the
/// batch's statistics and updates running averages (PyTorch conventions: momentum 0.1, running
/// variance unbiased); evaluation uses the running averages, which is what export folds in.
final class BatchNormOperation: FramewiseOperation {
    static let momentum: Float = 0.1
    static let epsilon: Float = 1e-5

    let channels: Int
    let scale: Parameter, shift: Parameter
    let runningMean: FloatBuffer, runningVariance: FloatBuffer
    private let output = FloatBuffer(), normalised = FloatBuffer(), inputGradient = FloatBuffer()
    private let mean = FloatBuffer(), inverseDeviation = FloatBuffer(), scratch = FloatBuffer()
    private let gradientSum = FloatBuffer(), gradientDotNormalised = FloatBuffer(), factors = FloatBuffer()

    init(channels: Int) {
        self.channels = channels
        scale = Parameter([Float](repeating: 1, count: channels), decays: false)
        shift = Parameter([Float](repeating: 0, count: channels), decays: false)
        runningMean = FloatBuffer([Float](repeating: 0, count: channels))
        runningVariance = FloatBuffer([Float](repeating: 1, count: channels))
        [mean, inverseDeviation, gradientSum, gradientDotNormalised].forEach { $0.reserve(channels) }
    }

    var outputChannels: Int { channels }
    var parameters: [Parameter] { [scale, shift] }

    /// Per-channel (multiplier, offset) of the evaluation-mode map y = multiplier·x + offset.
    func evaluationAffine() -> (multiplier: [Float], offset: [Float]) {
        var multiplier = [Float](repeating: 0, count: channels), offset = multiplier
        for c in 0..<channels {
            multiplier[c] = scale.values.pointer[c] / (runningVariance.pointer[c] + Self.epsilon).squareRoot()
            offset[c] = shift.values.pointer[c] - runningMean.pointer[c] * multiplier[c]
        }
        return (multiplier, offset)
    }

    func forward(_ input: SequenceView, outputFrames: Int, context: ForwardContext) -> SequenceView {
        precondition(input.frames == outputFrames, "batch norm maps frames one to one")
        let rows = input.rows, channels = channels, x = UnsafePointer(input.pointer)
        let out = output.reserve(input.count)
        let mu = mean.pointer, inverse = inverseDeviation.pointer
        if context.training {
            mu.update(repeating: 0, count: channels)
            TrainingKernels.addColumnSums(x, rows: rows, columns: channels, into: mu, scratch: scratch, context.parallelism)
            for c in 0..<channels { mu[c] /= Float(rows) }
            let variance = gradientSum.pointer  // free until backward
            variance.update(repeating: 0, count: channels)
            TrainingKernels.addColumnReductions(rows: rows, columns: channels, into: variance, scratch: scratch,
                                                context.parallelism) { row, partial in
                let values = x + row * channels
                TrainingKernels.loop(channels, vector: { c in
                    let deviation = TrainingKernels.load(values, c) - TrainingKernels.load(mu, c)
                    TrainingKernels.store(TrainingKernels.load(partial, c) + deviation * deviation, partial, c)
                }, scalar: { c in
                    let deviation = values[c] - mu[c]
                    partial[c] += deviation * deviation
                })
            }
            let momentum = Self.momentum, unbiased = Float(rows) / Float(max(rows - 1, 1))
            for c in 0..<channels {
                variance[c] /= Float(rows)
                inverse[c] = 1 / (variance[c] + Self.epsilon).squareRoot()
                runningMean.pointer[c] += momentum * (mu[c] - runningMean.pointer[c])
                runningVariance.pointer[c] += momentum * (variance[c] * unbiased - runningVariance.pointer[c])
            }
        } else {
            mu.update(from: runningMean.pointer, count: channels)
            for c in 0..<channels { inverse[c] = 1 / (runningVariance.pointer[c] + Self.epsilon).squareRoot() }
        }
        let normalisedValues = normalised.reserve(input.count), gamma = scale.values.pointer, beta = shift.values.pointer
        context.parallelism.forEachPart(count: rows, minimumPerPart: 128) { _, range in
            for row in range {
                let values = x + row * channels, xhat = normalisedValues + row * channels, y = out + row * channels
                TrainingKernels.loop(channels, vector: { c in
                    let normal = (TrainingKernels.load(values, c) - TrainingKernels.load(mu, c)) * TrainingKernels.load(inverse, c)
                    TrainingKernels.store(normal, xhat, c)
                    TrainingKernels.store(TrainingKernels.load(gamma, c) * normal + TrainingKernels.load(beta, c), y, c)
                }, scalar: { c in
                    xhat[c] = (values[c] - mu[c]) * inverse[c]
                    y[c] = gamma[c] * xhat[c] + beta[c]
                })
            }
        }
        return SequenceView(pointer: out, batch: input.batch, frames: input.frames, channels: channels)
    }

    /// dx = γ·σ⁻¹/N · (N·dy − Σdy − x̂·Σ(dy·x̂)), sums over the batch's frames (after a training pass).
    func backward(_ outputGradient: SequenceView, needsInputGradient: Bool, parallelism: Parallelism) -> SequenceView? {
        let rows = outputGradient.rows, channels = channels, dy = UnsafePointer(outputGradient.pointer)
        let xhat = UnsafePointer(normalised.pointer)
        let sumDy = gradientSum.pointer, sumDyXhat = gradientDotNormalised.pointer
        sumDy.update(repeating: 0, count: channels)
        sumDyXhat.update(repeating: 0, count: channels)
        TrainingKernels.addColumnSums(dy, rows: rows, columns: channels, into: sumDy, scratch: scratch, parallelism)
        TrainingKernels.addColumnProductSums(dy, xhat, rows: rows, columns: channels, into: sumDyXhat, scratch: scratch, parallelism)
        for c in 0..<channels {
            scale.gradient.pointer[c] += sumDyXhat[c]
            shift.gradient.pointer[c] += sumDy[c]
        }
        guard needsInputGradient else { return nil }
        let dx = inputGradient.reserve(outputGradient.count)
        let count = Float(rows), factor = factors.reserve(channels)
        for c in 0..<channels { factor[c] = scale.values.pointer[c] * inverseDeviation.pointer[c] / count }
        parallelism.forEachPart(count: rows, minimumPerPart: 128) { _, range in
            for row in range {
                let g = dy + row * channels, normal = xhat + row * channels, result = dx + row * channels
                TrainingKernels.loop(channels, vector: { c in
                    let centred = count * TrainingKernels.load(g, c) - TrainingKernels.load(sumDy, c)
                        - TrainingKernels.load(normal, c) * TrainingKernels.load(sumDyXhat, c)
                    TrainingKernels.store(TrainingKernels.load(factor, c) * centred, result, c)
                }, scalar: { c in
                    result[c] = factor[c] * (count * g[c] - sumDy[c] - normal[c] * sumDyXhat[c])
                })
            }
        }
        return SequenceView(pointer: dx, batch: outputGradient.batch, frames: outputGradient.frames, channels: channels)
    }
}
