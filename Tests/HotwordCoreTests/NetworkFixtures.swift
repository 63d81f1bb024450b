import Foundation
import HotwordCore
import HotwordTestSupport

/// Random networks of every layer kind, and an independent whole-sequence reference in
/// Double written straight from the layer equations (no streaming state, no SIMD).
enum NetworkFixtures {
    static func conv(_ rng: inout SeededGenerator, inputs: Int, outputs: Int, kernel: Int, dilation: Int = 1,
                     stride: Int = 1, depthwise: Bool = false, groups: Int = 1, activation: Activation = .relu) -> Layer {
        let count = depthwise ? kernel * inputs : outputs * kernel * inputs / groups
        return .conv1D(Conv1DLayer(inputs: inputs, outputs: depthwise ? inputs : outputs, kernelSize: kernel,
                                   dilation: dilation, stride: stride, depthwise: depthwise, groups: groups, activation: activation,
                                   weights: rng.floats(count, scale: 0.3), bias: rng.floats(depthwise ? inputs : outputs, scale: 0.1)))
    }

    static func dense(_ rng: inout SeededGenerator, inputs: Int, outputs: Int, activation: Activation) -> Layer {
        .dense(DenseLayer(inputs: inputs, outputs: outputs, activation: activation,
                          weights: rng.floats(inputs * outputs, scale: 0.3), bias: rng.floats(outputs, scale: 0.1)))
    }

    static func gru(_ rng: inout SeededGenerator, inputs: Int, hidden: Int) -> Layer {
        .gru(GRULayer(inputs: inputs, hidden: hidden, inputWeights: rng.floats(3 * hidden * inputs, scale: 0.3),
                      recurrentWeights: rng.floats(3 * hidden * hidden, scale: 0.3),
                      inputBias: rng.floats(3 * hidden, scale: 0.1), recurrentBias: rng.floats(3 * hidden, scale: 0.1)))
    }

    /// A model using every layer kind: strided, depthwise and dilated grouped convolutions, a GRU, dense layers.
    static func everyLayerKind(seed: UInt64 = 7, features: Int = 40, keywords: [String] = ["hey susi"],
                               output: Activation = .sigmoid) -> KeywordModel {
        var rng = SeededGenerator(seed: seed)
        let outputs = output == .softmax ? keywords.count + 1 : keywords.count
        return KeywordModel(
            keywords: keywords,
            frontend: FrontendConfig(melBands: features),
            layers: [
                conv(&rng, inputs: features, outputs: 24, kernel: 3, stride: 2),
                conv(&rng, inputs: 24, outputs: 24, kernel: 5, depthwise: true, activation: .linear),
                conv(&rng, inputs: 24, outputs: 16, kernel: 1),
                conv(&rng, inputs: 16, outputs: 16, kernel: 3, dilation: 2, groups: 2),
                gru(&rng, inputs: 16, hidden: 12),
                dense(&rng, inputs: 12, outputs: 8, activation: .tanh),
                dense(&rng, inputs: 8, outputs: outputs, activation: output),
            ])
    }

    /// Whole-sequence outputs, one row per network output, from the equations in Double.
    static func reference(_ model: KeywordModel, frames: [[Float]]) -> [[Double]] {
        var sequence = frames.map { $0.map(Double.init) }
        for layer in model.layers {
            switch layer {
            case .dense(let l):
                sequence = sequence.map { x in
                    activate(l.activation, (0..<l.outputs).map { o in
                        Double(l.bias[o]) + (0..<l.inputs).reduce(0) { $0 + Double(l.weights[o * l.inputs + $1]) * x[$1] }
                    })
                }
            case .conv1D(let l):
                var out: [[Double]] = []
                for t in sequence.indices where (t + 1) % l.stride == 0 {
                    func x(_ time: Int, _ channel: Int) -> Double { time < 0 ? 0 : sequence[time][channel] }
                    let y = (0..<l.outputs).map { o -> Double in
                        let firstInput = o / (l.outputs / l.groups) * l.inputsPerGroup
                        var sum = Double(l.bias[o])
                        for j in 0..<l.kernelSize {
                            let time = t - (l.kernelSize - 1 - j) * l.dilation
                            if l.depthwise {
                                sum += Double(l.weights[j * l.inputs + o]) * x(time, o)
                            } else {
                                for i in 0..<l.inputsPerGroup {
                                    sum += Double(l.weights[(o * l.kernelSize + j) * l.inputsPerGroup + i]) * x(time, firstInput + i)
                                }
                            }
                        }
                        return sum
                    }
                    out.append(activate(l.activation, y))
                }
                sequence = out
            case .gru(let l):
                let n = l.hidden
                var h = [Double](repeating: 0, count: n)
                sequence = sequence.map { x in
                    func gate(_ row: Int) -> (input: Double, recurrent: Double) {
                        (Double(l.inputBias[row]) + (0..<l.inputs).reduce(0) { $0 + Double(l.inputWeights[row * l.inputs + $1]) * x[$1] },
                         Double(l.recurrentBias[row]) + (0..<n).reduce(0) { $0 + Double(l.recurrentWeights[row * n + $1]) * h[$1] })
                    }
                    h = (0..<n).map { i in
                        let r = sigmoid(gate(i).input + gate(i).recurrent)
                        let z = sigmoid(gate(n + i).input + gate(n + i).recurrent)
                        let candidate = tanh(gate(2 * n + i).input + r * gate(2 * n + i).recurrent)
                        return (1 - z) * candidate + z * h[i]
                    }
                    return h
                }
            }
        }
        return sequence
    }

    static func sigmoid(_ x: Double) -> Double { 1 / (1 + exp(-x)) }

    static func activate(_ activation: Activation, _ y: [Double]) -> [Double] {
        switch activation {
        case .linear: y
        case .relu: y.map { max($0, 0) }
        case .sigmoid: y.map(sigmoid)
        case .tanh: y.map { tanh($0) }
        case .softmax:
            y.map { exp($0 - y.max()!) }.map { $0 / y.map { exp($0 - y.max()!) }.reduce(0, +) }
        }
    }
}
