/// An exponential moving average of a network's parameters and batch-norm statistics (Polyak
/// averaging). The weights the optimiser leaves depend on the last few mini-batches; their
/// average over the last epoch or so does not, so validation scores them more steadily and early
/// stopping picks a better epoch rather than a lucky one.
final class WeightAverage {
    private let sources: [FloatBuffer]
    private let counts: [Int]
    private let averages: [FloatBuffer]
    private unowned let network: Network

    /// Starts the average at the network's current state.
    init(of network: Network) {
        self.network = network
        let buffers = network.averagedBuffers
        sources = buffers.map(\.buffer)
        counts = buffers.map(\.count)
        averages = buffers.map { source in
            let copy = FloatBuffer(count: source.count)
            copy.pointer.update(from: source.buffer.pointer, count: source.count)
            return copy
        }
    }

    /// average ← decay · average + (1 − decay) · current, after each optimiser step.
    func update(decay: Float) {
        for (index, count) in counts.enumerated() {
            let average = averages[index].pointer, current = sources[index].pointer
            for i in 0..<count { average[i] = decay * average[i] + (1 - decay) * current[i] }
        }
    }

    /// Runs `body` with the averaged weights in the network, then puts the trained ones back.
    func whileApplied<T>(_ body: () throws -> T) rethrows -> T {
        swapWithNetwork()
        defer { swapWithNetwork() }
        return try body()
    }

    private func swapWithNetwork() {
        for (index, count) in counts.enumerated() {
            let a = averages[index].pointer, b = sources[index].pointer
            for i in 0..<count { swap(&a[i], &b[i]) }
        }
    }

    /// The decay that gives the average a time constant of `epochs` epochs of `steps` steps each.
    static func decay(epochs: Double, stepsPerEpoch steps: Int) -> Float {
        Float(1 - 1 / max(1, epochs * Double(steps)))
    }
}
