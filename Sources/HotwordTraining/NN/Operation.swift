/// A trainable tensor with its gradient (accumulated by backward passes until zeroed).
final class Parameter {
    let count: Int
    let values: FloatBuffer
    let gradient: FloatBuffer
    /// Weight decay applies to weights, not to biases or batch-norm scales and shifts.
    let decays: Bool

    init(_ initialValues: [Float], decays: Bool) {
        count = initialValues.count
        values = FloatBuffer(initialValues)
        gradient = FloatBuffer(count: initialValues.count)
        self.decays = decays
    }

    var valuesArray: [Float] { values.array(count) }
}

/// What a forward pass needs besides its input.
struct ForwardContext {
    var training: Bool
    var parallelism: Parallelism
    /// Which training pass this is: dropout masks are a function of the seed and this number.
    var round: UInt64
}

/// One step of a network's computation on `[batch][frames][channels]` sequences. Outputs are
/// aligned to the end of the input: the last output frame always belongs to the last input frame.
/// Buffers are owned by the operation and valid until its next forward pass.
protocol Operation: AnyObject {
    var outputChannels: Int { get }
    var parameters: [Parameter] { get }
    /// Input frames read to make the last `outputs` output frames (nil: all of them, or all of the input).
    func inputFrames(forOutputs outputs: Int?) -> Int?
    /// How many output frames `frames` input frames can give.
    func outputFrames(inputFrames frames: Int) -> Int
    /// Computes the last `outputFrames` output frames.
    func forward(_ input: SequenceView, outputFrames: Int, context: ForwardContext) -> SequenceView
    /// Adds the parameter gradients for `outputGradient` (same shape as the last output) and,
    /// when asked, returns the gradient with respect to the last input.
    func backward(_ outputGradient: SequenceView, needsInputGradient: Bool, parallelism: Parallelism) -> SequenceView?
}

/// Operations that map each frame to one frame (batch norm, activations, dropout).
protocol FramewiseOperation: Operation {}

extension FramewiseOperation {
    func inputFrames(forOutputs outputs: Int?) -> Int? { outputs }
    func outputFrames(inputFrames frames: Int) -> Int { frames }
}

/// Operations sliding a kernel over time (convolutions): outputs i reads input frames
/// start + i·stride + j·dilation for j < kernel, the last output reading the last frame.
protocol TemporalOperation: Operation {
    var kernel: Int { get }
    var dilation: Int { get }
    var stride: Int { get }
    var weights: Parameter { get }
    var bias: Parameter? { get }
}

extension TemporalOperation {
    var receptiveField: Int { (kernel - 1) * dilation + 1 }
    var parameters: [Parameter] { [weights] + (bias.map { [$0] } ?? []) }

    func inputFrames(forOutputs outputs: Int?) -> Int? { outputs.map { ($0 - 1) * stride + receptiveField } }

    func outputFrames(inputFrames frames: Int) -> Int { frames < receptiveField ? 0 : (frames - receptiveField) / stride + 1 }

    /// The input frame the first of `outputFrames` outputs starts at.
    func firstInputFrame(of input: SequenceView, outputFrames: Int) -> Int {
        input.frames - ((outputFrames - 1) * stride + receptiveField)
    }
}
