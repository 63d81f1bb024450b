import Foundation

/// Settings of the Adam optimiser.
public struct AdamConfiguration: Sendable, Hashable {
    public var learningRate: Float
    public var beta1: Float
    public var beta2: Float
    public var epsilon: Float
    /// Decoupled weight decay (AdamW): weights shrink by learningRate·weightDecay each step.
    /// Biases and batch-norm scales and shifts never decay.
    public var weightDecay: Float
    /// When set, gradients are scaled down so that their global L2 norm is at most this.
    public var gradientClipNorm: Float?

    public init(learningRate: Float = 1e-3, beta1: Float = 0.9, beta2: Float = 0.999, epsilon: Float = 1e-8,
                weightDecay: Float = 0, gradientClipNorm: Float? = nil) {
        self.learningRate = learningRate
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.weightDecay = weightDecay
        self.gradientClipNorm = gradientClipNorm
    }
}

/// Adam (with optional AdamW decay and global-norm clipping) over a network's parameters,
/// using the gradients its backward passes accumulated. Change `configuration.learningRate`
/// between steps for a schedule.
public final class Adam {
    public var configuration: AdamConfiguration
    public private(set) var steps = 0
    /// The global gradient norm of the last step, before clipping.
    public private(set) var lastGradientNorm: Float = 0
    private let parameters: [Parameter]
    private let firstMoments: [FloatBuffer], secondMoments: [FloatBuffer]

    public init(network: Network, configuration: AdamConfiguration = AdamConfiguration()) {
        self.configuration = configuration
        parameters = network.parameters
        firstMoments = parameters.map { FloatBuffer(count: $0.count) }
        secondMoments = parameters.map { FloatBuffer(count: $0.count) }
    }

    public func step() {
        steps += 1
        var squares = 0.0
        for parameter in parameters {
            let g = parameter.gradient.pointer
            var sum: Float = 0
            for i in 0..<parameter.count { sum += g[i] * g[i] }
            squares += Double(sum)
        }
        lastGradientNorm = Float(squares.squareRoot())
        var gradientScale: Float = 1
        if let limit = configuration.gradientClipNorm, lastGradientNorm > limit { gradientScale = limit / lastGradientNorm }
        let c = configuration
        let correction1 = Float(1 - pow(Double(c.beta1), Double(steps))), correction2 = Float(1 - pow(Double(c.beta2), Double(steps)))
        let stepSize = c.learningRate / correction1
        for (index, parameter) in parameters.enumerated() {
            let w = parameter.values.pointer, g = parameter.gradient.pointer
            let m = firstMoments[index].pointer, v = secondMoments[index].pointer
            let decay = parameter.decays ? 1 - c.learningRate * c.weightDecay : 1
            for i in 0..<parameter.count {
                let gradient = g[i] * gradientScale
                m[i] = c.beta1 * m[i] + (1 - c.beta1) * gradient
                v[i] = c.beta2 * v[i] + (1 - c.beta2) * gradient * gradient
                w[i] = w[i] * decay - stepSize * m[i] / ((v[i] / correction2).squareRoot() + c.epsilon)
            }
        }
    }
}
