import Foundation

/// Losses on the logits of the last frame, each returning the batch's loss and dLoss/dlogits.
/// Window weights w scale each window's share; the loss is the mean over windows (and outputs) of
/// w·loss, so weights of 1 give the plain mean. Sums run in Double.
public enum Loss {
    /// Binary cross-entropy on sigmoid(logit), computed stably from the logit:
    /// max(z, 0) − z·y + log(1 + e^−|z|); gradient w·(σ(z) − y) / (count·outputs).
    public static func binaryCrossEntropy(
        logits: [Float], targets: [Float], weights: [Float]?, outputs: Int
    ) throws(NetworkError) -> (loss: Float, gradient: [Float]) {
        let count = logits.count / outputs
        guard targets.count == logits.count else {
            throw .shapeMismatch(what: "binary targets", expected: logits.count, actual: targets.count)
        }
        if let weights, weights.count != count { throw .shapeMismatch(what: "window weights", expected: count, actual: weights.count) }
        if let bad = targets.firstIndex(where: { !($0 >= 0 && $0 <= 1) }) {
            throw .invalidTargets("target \(bad) is \(targets[bad]), expected a value in [0, 1]")
        }
        var total = 0.0
        var gradient = [Float](repeating: 0, count: logits.count)
        let scale = 1 / Float(logits.count)
        for (index, z) in logits.enumerated() {
            let y = targets[index], weight = weights?[index / outputs] ?? 1
            total += Double(weight) * Double(max(z, 0) - z * y + Foundation.log1p(Foundation.exp(-abs(z))))
            gradient[index] = weight * (1 / (1 + Foundation.exp(-z)) - y) * scale
        }
        return (Float(total / Double(logits.count)), gradient)
    }

    /// Cross-entropy of softmax(logits) against a class index: logsumexp(z) − z_class;
    /// gradient w·(softmax(z) − onehot) / count.
    public static func softmaxCrossEntropy(
        logits: [Float], classes: [Int], weights: [Float]?, outputs: Int
    ) throws(NetworkError) -> (loss: Float, gradient: [Float]) {
        let count = logits.count / outputs
        guard classes.count == count else { throw .shapeMismatch(what: "class targets", expected: count, actual: classes.count) }
        if let weights, weights.count != count { throw .shapeMismatch(what: "window weights", expected: count, actual: weights.count) }
        if let bad = classes.firstIndex(where: { !(0..<outputs).contains($0) }) {
            throw .invalidTargets("class \(classes[bad]) of window \(bad) is not in 0..<\(outputs)")
        }
        var total = 0.0
        var gradient = [Float](repeating: 0, count: logits.count)
        for row in 0..<count {
            let z = logits[(row * outputs)..<((row + 1) * outputs)], weight = weights?[row] ?? 1
            let largest = z.max()!
            let exponentials = z.map { Foundation.exp($0 - largest) }
            let sum = exponentials.reduce(0, +)
            total += Double(weight) * Double(Foundation.log(sum) + largest - z[row * outputs + classes[row]])
            for (k, e) in exponentials.enumerated() {
                gradient[row * outputs + k] = weight * (e / sum - (k == classes[row] ? 1 : 0)) / Float(count)
            }
        }
        return (Float(total / Double(count)), gradient)
    }
}
