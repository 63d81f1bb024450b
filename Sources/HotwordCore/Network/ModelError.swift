/// What is wrong with a model, precisely enough to fix it. File paths are added by whoever
/// read the bytes (the core does no I/O).
public enum ModelError: Error, Sendable, Hashable, CustomStringConvertible {
    case truncated(expectedBytes: Int, actualBytes: Int)
    case trailingBytes(expectedBytes: Int, actualBytes: Int)
    case notAModel
    case notASpeechEmbedding
    case unsupportedVersion(found: UInt32, supported: UInt32)
    case checksumMismatch(stored: UInt32, computed: UInt32)
    case malformedHeader(String)
    case invalidModel(String)
    case invalidLayer(index: Int, kind: String, reason: String)

    public var description: String {
        switch self {
        case .truncated(let expected, let actual):
            "truncated: \(actual) bytes, expected \(expected)"
        case .trailingBytes(let expected, let actual):
            "\(actual - expected) unexpected bytes after the end of the model (\(expected) bytes expected)"
        case .notAModel:
            "not a hotword model (missing the 'HWKS' magic bytes)"
        case .notASpeechEmbedding:
            "not a hotword speech embedding (missing the 'HWSE' magic bytes)"
        case .unsupportedVersion(let found, let supported):
            "model format version \(found) is not supported (this hotword reads versions up to \(supported)); update hotword or re-export the model"
        case .checksumMismatch(let stored, let computed):
            "checksum mismatch (stored \(hex(stored)), computed \(hex(computed))): the file is corrupt"
        case .malformedHeader(let reason):
            "malformed header: \(reason)"
        case .invalidModel(let reason):
            "invalid model: \(reason)"
        case .invalidLayer(let index, let kind, let reason):
            "layer \(index) (\(kind)): \(reason)"
        }
    }

    private func hex(_ value: UInt32) -> String { "0x" + String(value, radix: 16) }
}

extension KeywordModel {
    /// Shape limits far beyond any keyword network. They keep every size the detector derives
    /// from a model file (weight counts, strides, streaming state, smoothing windows) from
    /// overflowing or asking for absurd memory.
    public static let maximumLayerWidth = 4_096
    /// Feature frames a kernel's taps, a dilation, a stride, the network's total stride or its
    /// receptive field may span.
    public static let maximumFrameSpan = 1 << 16
    /// Floats all convolutions together keep of their past inputs (64 MB).
    public static let maximumStreamingState = 1 << 24
    /// Network outputs per second of audio (one per millisecond).
    public static let maximumOutputRate = 1_000

    /// Checks every shape, count and value a network needs to run; throws the first problem.
    public func validate() throws(ModelError) {
        guard !keywords.isEmpty else { throw .invalidModel("no keywords") }
        if let empty = keywords.firstIndex(where: { $0.isEmpty }) {
            throw .invalidModel("keyword \(empty) has an empty name")
        }
        guard Set(keywords).count == keywords.count else { throw .invalidModel("duplicate keyword names \(keywords)") }
        do {
            try frontend.validate()
        } catch {
            throw .invalidModel("frontend: \(error)")
        }
        guard !layers.isEmpty else { throw .invalidModel("no layers") }
        var width = frontend.featureCount
        // Accumulated layer by layer, each step bounded, so nothing can overflow.
        var stride = 1, field = 1, state = 0
        for (index, layer) in layers.enumerated() {
            try layer.validate(index: index, inputWidth: width)
            width = layer.outputs
            if case .conv1D(let conv) = layer {
                field += (conv.receptiveField - 1) * stride
                state += conv.historyCount
            }
            stride *= layer.stride
            guard stride <= Self.maximumFrameSpan, field <= Self.maximumFrameSpan else {
                throw .invalidModel("the network's total stride (\(stride)) and receptive field (\(field)) must stay within \(Self.maximumFrameSpan) frames")
            }
            guard state <= Self.maximumStreamingState else {
                throw .invalidModel("the convolutions keep \(state) past values, more than \(Self.maximumStreamingState)")
            }
        }
        let outputRate = Double(frontend.sampleRate) / Double(frontend.outputFrameShift * stride)
        guard outputRate <= Double(Self.maximumOutputRate) else {
            throw .invalidModel("the network gives \(outputRate) outputs per second, more than \(Self.maximumOutputRate)")
        }
        switch outputKind {
        case .sigmoid where width != keywords.count:
            throw .invalidModel("the sigmoid output has \(width) values for \(keywords.count) keywords")
        case .softmaxWithBackground where width != keywords.count + 1:
            throw .invalidModel("the softmax output has \(width) values, expected \(keywords.count + 1) (background + keywords)")
        case nil:
            throw .invalidModel("the last layer must end in sigmoid or softmax")
        default:
            break
        }
        try detection.validate()
        try validateCompanion()
    }

    private func validateCompanion() throws(ModelError) {
        guard let companion, let companionModel else { return }
        guard companion.weight.isFinite, companion.weight > 0, companion.weight < 1 else {
            throw .invalidModel("companion weight \(companion.weight) must lie strictly between 0 and 1")
        }
        guard outputKind == .sigmoid, companionModel.outputKind == .sigmoid else {
            throw .invalidModel("a model with a companion network needs both networks to end in sigmoid (one score per keyword)")
        }
        guard companion.frontend.sampleRate == frontend.sampleRate else {
            throw .invalidModel("the companion's frontend hears \(companion.frontend.sampleRate) Hz, the model \(frontend.sampleRate) Hz")
        }
        do {
            try companionModel.validate()
        } catch {
            throw .invalidModel("companion network: \(error)")
        }
        try companion.gate?.validate(for: companionModel)
    }
}

extension DetectionDefaults {
    func validate() throws(ModelError) {
        guard (0...1).contains(sensitivity) else { throw .invalidModel("default sensitivity \(sensitivity) is outside [0, 1]") }
        // The detector's own limits: a model that loads must also run.
        guard (0...Float(Self.maximumSmoothingSeconds)).contains(smoothingSeconds) else {
            throw .invalidModel("smoothingSeconds \(smoothingSeconds) must lie in 0...\(Self.maximumSmoothingSeconds)")
        }
        guard triggerLevel >= 1 else { throw .invalidModel("triggerLevel \(triggerLevel) must be ≥ 1") }
        guard (0...Float(Self.maximumRefractorySeconds)).contains(refractorySeconds) else {
            throw .invalidModel("refractorySeconds \(refractorySeconds) must lie in 0...\(Self.maximumRefractorySeconds)")
        }
        let points = sensitivityMap.points
        guard let first = points.first, let last = points.last, first.sensitivity == 0, last.sensitivity == 1 else {
            throw .invalidModel("the sensitivity map must run from sensitivity 0 to 1")
        }
        for (a, b) in zip(points, points.dropFirst()) {
            guard a.sensitivity < b.sensitivity, a.threshold >= b.threshold else {
                throw .invalidModel("the sensitivity map must rise in sensitivity and not rise in threshold (at sensitivity \(b.sensitivity))")
            }
        }
        guard points.allSatisfy({ $0.threshold.isFinite && (0...1).contains($0.threshold) }) else {
            throw .invalidModel("sensitivity map thresholds must lie in [0, 1]")
        }
        if let phraseCheck, !(phraseCheck.thresholdPerPhone > 0 && phraseCheck.thresholdPerPhone <= 1) {
            throw .invalidModel("phraseCheck.thresholdPerPhone \(phraseCheck.thresholdPerPhone) must lie in (0, 1]")
        }
    }
}

extension Layer {
    func validate(index: Int, inputWidth: Int) throws(ModelError) {
        func fail(_ reason: String) -> ModelError { .invalidLayer(index: index, kind: kindName, reason: reason) }
        func check(_ name: String, _ values: [Float], count: Int) throws(ModelError) {
            guard values.count == count else { throw fail("\(name) has \(values.count) values, expected \(count)") }
            guard values.allSatisfy(\.isFinite) else { throw fail("\(name) contains NaN or infinity") }
        }
        let widths = 1...KeywordModel.maximumLayerWidth
        guard widths.contains(inputs), widths.contains(outputs) else {
            throw fail("inputs \(inputs) and outputs \(outputs) must lie in \(widths)")
        }
        guard inputs == inputWidth else {
            throw fail("expects \(inputs) inputs but receives \(inputWidth) (from the \(index == 0 ? "frontend" : "previous layer"))")
        }
        switch self {
        case .dense(let l):
            try check("weights", l.weights, count: l.outputs * l.inputs)
            try check("bias", l.bias, count: l.outputs)
        case .conv1D(let l):
            let frames = 1...KeywordModel.maximumFrameSpan
            guard frames.contains(l.kernelSize), frames.contains(l.dilation), frames.contains(l.stride) else {
                throw fail("kernelSize \(l.kernelSize), dilation \(l.dilation) and stride \(l.stride) must lie in \(frames)")
            }
            guard frames.contains(l.receptiveField) else {
                throw fail("its taps span \(l.receptiveField) frames ((kernelSize − 1) × dilation + 1), more than \(frames.upperBound)")
            }
            guard !l.depthwise || l.outputs == l.inputs else {
                throw fail("a depthwise convolution needs outputs == inputs, got \(l.outputs) and \(l.inputs)")
            }
            guard l.groups >= 1, l.inputs % l.groups == 0, l.outputs % l.groups == 0, !l.depthwise || l.groups == 1 else {
                throw fail("groups \(l.groups) must divide inputs \(l.inputs) and outputs \(l.outputs) (and be 1 for a depthwise convolution)")
            }
            try check("weights", l.weights, count: l.expectedWeightCount)
            try check("bias", l.bias, count: l.outputs)
        case .gru(let l):
            try check("inputWeights", l.inputWeights, count: 3 * l.hidden * l.inputs)
            try check("recurrentWeights", l.recurrentWeights, count: 3 * l.hidden * l.hidden)
            try check("inputBias", l.inputBias, count: 3 * l.hidden)
            try check("recurrentBias", l.recurrentBias, count: 3 * l.hidden)
        }
    }
}
