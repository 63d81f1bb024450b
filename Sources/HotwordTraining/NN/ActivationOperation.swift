import Foundation
import HotwordCore

/// ReLU, sigmoid, tanh or softmax (over each frame's channels) between layers. The network's
/// final activation is not one of these: the loss takes the logits before it.
final class ActivationOperation: FramewiseOperation {
    let activation: Activation
    let channels: Int
    private let output = FloatBuffer(), inputGradient = FloatBuffer()

    init(_ activation: Activation, channels: Int) {
        self.activation = activation
        self.channels = channels
    }

    var outputChannels: Int { channels }
    var parameters: [Parameter] { [] }

    func forward(_ input: SequenceView, outputFrames: Int, context: ForwardContext) -> SequenceView {
        precondition(input.frames == outputFrames, "activations map frames one to one")
        let y = output.reserve(input.count), x = input.pointer, activation = activation, channels = channels
        if activation == .relu {
            context.parallelism.forEachPart(count: input.count, minimumPerPart: 32_768) { _, range in
                Self.relu(x + range.lowerBound, into: y + range.lowerBound, count: range.count)
            }
        } else {
            context.parallelism.forEachPart(count: input.rows, minimumPerPart: 256) { _, range in
                for row in range { Self.apply(activation, x + row * channels, into: y + row * channels, count: channels) }
            }
        }
        return SequenceView(pointer: y, batch: input.batch, frames: input.frames, channels: channels)
    }

    func backward(_ outputGradient: SequenceView, needsInputGradient: Bool, parallelism: Parallelism) -> SequenceView? {
        guard needsInputGradient else { return nil }
        let dx = inputGradient.reserve(outputGradient.count), dy = outputGradient.pointer, y = output.pointer
        let activation = activation, channels = channels
        if activation == .relu {
            parallelism.forEachPart(count: outputGradient.count, minimumPerPart: 32_768) { _, range in
                let offset = range.lowerBound
                Self.reluDerivative(output: y + offset, outputGradient: dy + offset, into: dx + offset, count: range.count)
            }
        } else {
            parallelism.forEachPart(count: outputGradient.rows, minimumPerPart: 256) { _, range in
                for row in range {
                    let offset = row * channels
                    Self.derivative(activation, output: y + offset, outputGradient: dy + offset, into: dx + offset, count: channels)
                }
            }
        }
        return SequenceView(pointer: dx, batch: outputGradient.batch, frames: outputGradient.frames, channels: channels)
    }

    /// The common case, vectorised.
    static func relu(_ x: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, count: Int) {
        TrainingKernels.loop(count, vector: { i in
            let v = TrainingKernels.load(x, i)
            TrainingKernels.store(v.replacing(with: 0, where: v .< 0), y, i)
        }, scalar: { i in y[i] = max(x[i], 0) })
    }

    static func reluDerivative(
        output y: UnsafePointer<Float>, outputGradient dy: UnsafePointer<Float>, into dx: UnsafeMutablePointer<Float>, count: Int
    ) {
        TrainingKernels.loop(count, vector: { i in
            let g = TrainingKernels.load(dy, i)
            TrainingKernels.store(g.replacing(with: 0, where: TrainingKernels.load(y, i) .<= 0), dx, i)
        }, scalar: { i in dx[i] = y[i] > 0 ? dy[i] : 0 })
    }

    static func apply(_ activation: Activation, _ x: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, count: Int) {
        if activation == .relu { return relu(x, into: y, count: count) }
        // The same equations inference uses, so training and streaming agree.
        y.update(from: x, count: count)
        activation.apply(y, count: count)
    }

    /// dx from dy, written in terms of the activation's output y.
    static func derivative(
        _ activation: Activation, output y: UnsafePointer<Float>, outputGradient dy: UnsafePointer<Float>,
        into dx: UnsafeMutablePointer<Float>, count: Int
    ) {
        switch activation {
        case .linear: dx.update(from: dy, count: count)
        case .relu: reluDerivative(output: y, outputGradient: dy, into: dx, count: count)
        case .sigmoid: for i in 0..<count { dx[i] = dy[i] * y[i] * (1 - y[i]) }
        case .tanh: for i in 0..<count { dx[i] = dy[i] * (1 - y[i] * y[i]) }
        case .softmax:
            var projection: Float = 0
            for i in 0..<count { projection += dy[i] * y[i] }
            for i in 0..<count { dx[i] = y[i] * (dy[i] - projection) }
        }
    }
}
