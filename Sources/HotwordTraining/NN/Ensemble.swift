import HotwordCore

extension KeywordModel {
    /// Networks of one shape trained with different seeds, run side by side as one network whose
    /// score is the sigmoid (or softmax) of their mean logit: their mistakes differ, so averaging
    /// cancels some, at N times the run-time work.
    ///
    /// Layer by layer: the first convolution reads the features all members share, so the
    /// members' filters are stacked; a depthwise convolution's channels are concatenated; a full
    /// convolution becomes a grouped one (member m's channels see only member m's), a hidden
    /// dense layer a block-diagonal one; the final dense layer concatenates its inputs with
    /// weights and bias divided by N, so it computes the mean of the members' logits. The members' frontend and keywords must match; the ensemble
    /// keeps the first member's detection settings and training record.
    ///
    /// Two members on different front ends cannot share a network: the second becomes the first's
    /// companion (`CompanionNetwork`), and the score is still the sigmoid of their mean logit.
    public static func ensemble(of members: [KeywordModel]) throws(TrainingError) -> KeywordModel {
        guard let first = members.first else { throw .incompatibleEnsemble("no members") }
        guard members.count > 1 else { return first }
        if let companion = members.first(where: { $0.companion != nil }) {
            throw .incompatibleEnsemble("member \(members.firstIndex(of: companion)! + 1) already has a companion network")
        }
        func differs(_ index: Int, _ what: String) -> TrainingError {
            .incompatibleEnsemble("member \(index + 1) does not match member 1 in its \(what)")
        }
        if let index = members.firstIndex(where: { $0.keywords != first.keywords }) { throw differs(index, "keywords") }
        if members.count == 2, members[1].frontend != first.frontend { return try pair(first, members[1]) }
        for (index, member) in members.enumerated() {
            guard member.frontend == first.frontend else { throw differs(index, "frontend (models on two front ends pair two at a time)") }
            guard member.layers.count == first.layers.count else { throw differs(index, "number of layers") }
        }
        var layers: [Layer] = []
        for index in first.layers.indices {
            let parts = members.map { $0.layers[index] }
            let isFirst = index == 0, isLast = index == first.layers.count - 1
            layers.append(try mergedLayer(parts, index: index, readsSharedInput: isFirst, isOutput: isLast))
        }
        var merged = first
        merged.layers = layers
        do {
            try merged.validate()
        } catch {
            throw .incompatibleEnsemble("the merged network is invalid: \(error)")
        }
        return merged
    }

    private static func pair(_ first: KeywordModel, _ second: KeywordModel) throws(TrainingError) -> KeywordModel {
        var paired = first
        paired.companion = CompanionNetwork(frontend: second.frontend, layers: second.layers, weight: 0.5)
        do {
            try paired.validate()
        } catch {
            throw .incompatibleEnsemble("the two front ends' networks cannot pair: \(error)")
        }
        return paired
    }

    private static func mergedLayer(_ parts: [Layer], index: Int, readsSharedInput: Bool, isOutput: Bool) throws(TrainingError) -> Layer {
        func unsupported(_ reason: String) -> TrainingError { .incompatibleEnsemble("layer \(index): \(reason)") }
        let count = Float(parts.count)
        switch parts[0] {
        case .conv1D(let shape):
            let convs = parts.compactMap { layer -> Conv1DLayer? in if case .conv1D(let c) = layer { c } else { nil } }
            guard convs.count == parts.count, convs.allSatisfy({ $0.sameShape(as: shape) }) else {
                throw unsupported("the members' convolutions differ in shape")
            }
            var merged = shape
            merged.bias = convs.flatMap(\.bias)
            merged.outputs = shape.outputs * parts.count
            if shape.depthwise {
                guard !readsSharedInput else { throw unsupported("a depthwise first layer cannot share the features") }
                merged.inputs = merged.outputs
                // [kernelSize][channels]: each tap's row is every member's channels in turn.
                merged.weights = (0..<shape.kernelSize).flatMap { tap in
                    convs.flatMap { $0.weights[(tap * shape.inputs)..<((tap + 1) * shape.inputs)] }
                }
            } else {
                // [outputs][kernelSize][inputs / groups]: members' filters one after another.
                merged.weights = convs.flatMap(\.weights)
                if readsSharedInput {
                    guard shape.groups == 1 else { throw unsupported("a grouped first layer cannot share the features") }
                } else {
                    merged.inputs = shape.inputs * parts.count
                    merged.groups = shape.groups * parts.count
                }
            }
            return .conv1D(merged)
        case .dense(let shape):
            let denses = parts.compactMap { layer -> DenseLayer? in if case .dense(let d) = layer { d } else { nil } }
            guard denses.count == parts.count, denses.allSatisfy({ $0.inputs == shape.inputs && $0.outputs == shape.outputs
                && $0.activation == shape.activation }) else {
                throw unsupported("the members' dense layers differ in shape")
            }
            var merged = shape
            func rows(_ dense: DenseLayer, _ o: Int) -> ArraySlice<Float> { dense.weights[(o * shape.inputs)..<((o + 1) * shape.inputs)] }
            switch (readsSharedInput, isOutput) {
            case (true, true):
                // One dense layer on the features: the mean of the members' weights is the mean logit.
                merged.weights = shape.weights.indices.map { i in denses.reduce(0) { $0 + $1.weights[i] } / count }
                merged.bias = (0..<shape.outputs).map { o in denses.reduce(0) { $0 + $1.bias[o] } / count }
            case (true, false):
                // [outputs][inputs]: the members' units one after another, all reading the features.
                merged.outputs = shape.outputs * parts.count
                merged.weights = denses.flatMap(\.weights)
                merged.bias = denses.flatMap(\.bias)
            case (false, false):
                // Block-diagonal: member m's units see only member m's outputs of the layer before.
                merged.inputs = shape.inputs * parts.count
                merged.outputs = shape.outputs * parts.count
                var weights = [Float](repeating: 0, count: merged.outputs * merged.inputs)
                for (m, dense) in denses.enumerated() {
                    for o in 0..<shape.outputs {
                        let start = (m * shape.outputs + o) * merged.inputs + m * shape.inputs
                        weights.replaceSubrange(start..<(start + shape.inputs), with: rows(dense, o))
                    }
                }
                merged.weights = weights
                merged.bias = denses.flatMap(\.bias)
            case (false, true):
                // Row o: every member's row o, each weighing 1/N: the mean of the members' logits.
                merged.inputs = shape.inputs * parts.count
                merged.weights = (0..<shape.outputs).flatMap { o in denses.flatMap { rows($0, o).map { $0 / count } } }
                merged.bias = (0..<shape.outputs).map { o in denses.reduce(0) { $0 + $1.bias[o] } / count }
            }
            return .dense(merged)
        case .gru:
            throw unsupported("recurrent layers are not supported in an ensemble")
        }
    }
}

private extension Conv1DLayer {
    func sameShape(as other: Conv1DLayer) -> Bool {
        inputs == other.inputs && outputs == other.outputs && kernelSize == other.kernelSize && dilation == other.dilation
            && stride == other.stride && depthwise == other.depthwise && groups == other.groups && activation == other.activation
    }
}
