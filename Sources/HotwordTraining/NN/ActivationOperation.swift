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
        context.parallelism.forEachPart(count: input.rows, minimumPerPart: 256) { _, range in
            for row in range {
                Self.apply(activation, x + row * channels, into: y + row * channels, count: channels)
            }
        }
        return SequenceView(pointer: y, batch: input.batch, frames: input.frames, channels: channels)
    }

    func backward(_ outputGradient: SequenceView, needsInputGradient: Bool, parallelism: Parallelism) -> SequenceView? {
        guard needsInputGradient else { return nil }
        let dx = inputGradient.reserve(outputGradient.count), dy = outputGradient.pointer, y = output.pointer
        let activation = activation, channels = channels
        parallelism.forEachPart(count: outputGradient.rows, minimumPerPart: 256) { _, range in
            for row in range {
                let offset = row * channels
                Self.derivative(activation, output: y + offset, outputGradient: dy + offset, into: dx + offset, count: channels)
            }
        }
        return SequenceView(pointer: dx, batch: outputGradient.batch, frames: outputGradient.frames, channels: channels)
    }

    static func apply(_ activation: Activation, _ x: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, count: Int) {
        switch activation {
        case .linear: y.update(from: x, count: count)
        case .relu: for i in 0..<count { y[i] = max(x[i], 0) }
        case .sigmoid: for i in 0..<count { y[i] = 1 / (1 + Foundation.exp(-x[i])) }
        case .tanh: for i in 0..<count { y[i] = Foundation.tanh(x[i]) }
        case .softmax:
            var largest = -Float.infinity
            for i in 0..<count { largest = max(largest, x[i]) }
            var total: Float = 0
            for i in 0..<count {
                y[i] = Foundation.exp(x[i] - largest)
                total += y[i]
            }
            for i in 0..<count { y[i] /= total }
        }
    }

    /// dx from dy, written in terms of the activation's output y.
    static func derivative(
        _ activation: Activation, output y: UnsafePointer<Float>, outputGradient dy: UnsafePointer<Float>,
        into dx: UnsafeMutablePointer<Float>, count: Int
    ) {
        switch activation {
        case .linear: dx.update(from: dy, count: count)
        case .relu: for i in 0..<count { dx[i] = y[i] > 0 ? dy[i] : 0 }
        case .sigmoid: for i in 0..<count { dx[i] = dy[i] * y[i] * (1 - y[i]) }
        case .tanh: for i in 0..<count { dx[i] = dy[i] * (1 - y[i] * y[i]) }
        case .softmax:
            var projection: Float = 0
            for i in 0..<count { projection += dy[i] * y[i] }
            for i in 0..<count { dx[i] = y[i] * (dy[i] - projection) }
        }
    }
}
