import Foundation
import HotwordCore

/// A pair on two front ends for cascade tests: the 1 kHz tone model first, and a small random head
/// on Google's speech embedding (16 embeddings, as the shipped heads) as its companion.
public enum CascadeModels {
    public static let embedding: SpeechEmbedding = {
        let url = TestPaths.projectRoot.appendingPathComponent("Models/speech_embedding.hwse")
        return try! SpeechEmbeddingFile.decode(Array(try! Data(contentsOf: url)))
    }()

    public static let first = ToneModels.model(keyword: "beep", frequency: 1_000)

    public static let head: KeywordModel = {
        var rng = SeededGenerator(seed: 11)
        var frontend = SpeechEmbedding.melFrontend
        frontend.embedding = embedding
        return KeywordModel(keywords: ["beep"], frontend: frontend, layers: [
            .conv1D(Conv1DLayer(inputs: 96, outputs: 4, kernelSize: 16, activation: .relu,
                                weights: rng.floats(96 * 16 * 4, scale: 0.05), bias: rng.floats(4, scale: 0.1))),
            .dense(DenseLayer(inputs: 4, outputs: 1, activation: .sigmoid, weights: rng.floats(4, scale: 1), bias: [0.5])),
        ])
    }()

    /// The pair, equally weighted, detecting at `threshold` at every sensitivity.
    public static func pair(gate: CompanionGate?, threshold: Float = 0.5) -> KeywordModel {
        var model = first
        model.companion = CompanionNetwork(frontend: head.frontend, layers: head.layers, weight: 0.5, gate: gate)
        model.detection.sensitivityMap = SensitivityMap(points: [.init(sensitivity: 0, threshold: threshold), .init(sensitivity: 1, threshold: threshold)])
        return model
    }
}
