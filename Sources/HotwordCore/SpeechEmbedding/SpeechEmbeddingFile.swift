import Foundation

/// A speech embedding on its own (Models/speech_embedding.hwse, written by
/// scripts/speech-embedding/import.sh): the model file container with magic "HWSE" and
/// `SpeechEmbeddingHeader` as its header. A keyword model trained on an embedding carries a copy
/// in its own file, so it runs without this one.
public enum SpeechEmbeddingFile {
    public static let magic: [UInt8] = Array("HWSE".utf8)
    public static let version: UInt32 = 1

    public static func encode(_ embedding: SpeechEmbedding) throws(ModelError) -> [UInt8] {
        try embedding.validate()
        var weights: [Float] = []
        let header = SpeechEmbeddingHeader(embedding, appendingTensorsTo: &weights)
        return try TensorFile.encode(magic: magic, version: version, header: header, weights: weights)
    }

    public static func decode(_ bytes: [UInt8]) throws(ModelError) -> SpeechEmbedding {
        let (header, weights, _) = try TensorFile.decode(
            bytes, magic: magic, versions: version...version, notThisKind: .notASpeechEmbedding,
            as: SpeechEmbeddingHeader.self, weightCount: \.weightCount, tensors: \.tensors)
        let embedding = try header.embedding(weights: weights)
        try embedding.validate()
        return embedding
    }
}

/// A speech embedding's description in a file header; its tensors live in the file's weights.
struct SpeechEmbeddingHeader: Codable {
    var windowFrames: Int
    var hopFrames: Int
    var melBands: Int
    var outputs: Int
    var input: SpeechEmbedding.InputMapping
    var layers: [LayerHeader]
    var provenance: [String: String]
    /// Set in a file of its own; in a keyword model the model's count covers these weights too.
    var weightCount: Int

    /// Every tensor its layers refer to.
    var tensors: [TensorRef] { layers.flatMap { $0.tensors.map { Array($0.values) } ?? [] } }

    struct LayerHeader: Codable {
        enum Kind: String, Codable { case conv2d, maxPool }
        var type: Kind
        var inputs: Int?
        var outputs: Int?
        var kernelTime: Int?
        var kernelBands: Int?
        var activation: Activation?
        var time: Int?
        var bands: Int?
        var tensors: [String: TensorRef]?
    }

    /// "linear" or {"leakyReLU": {"slope": …, "floor": …}}.
    enum Activation: Codable {
        case linear
        case leakyReLU(SpeechEmbedding.Conv2DLayer.LeakyReLU)

        private enum Keys: String, CodingKey { case leakyReLU }

        init(from decoder: any Decoder) throws {
            if let name = try? decoder.singleValueContainer().decode(String.self) {
                guard name == "linear" else {
                    throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown activation '\(name)', expected \"linear\" or {\"leakyReLU\": …}"))
                }
                self = .linear
            } else {
                self = .leakyReLU(try decoder.container(keyedBy: Keys.self).decode(SpeechEmbedding.Conv2DLayer.LeakyReLU.self, forKey: .leakyReLU))
            }
        }

        func encode(to encoder: any Encoder) throws {
            switch self {
            case .linear:
                var container = encoder.singleValueContainer()
                try container.encode("linear")
            case .leakyReLU(let act):
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(act, forKey: .leakyReLU)
            }
        }
    }

    init(_ embedding: SpeechEmbedding, appendingTensorsTo weights: inout [Float]) {
        windowFrames = embedding.windowFrames
        hopFrames = embedding.hopFrames
        melBands = embedding.melBands
        outputs = embedding.outputs
        input = embedding.input
        provenance = embedding.provenance
        layers = embedding.layers.map { layer in
            switch layer {
            case .conv2D(let conv):
                LayerHeader(type: .conv2d, inputs: conv.inputs, outputs: conv.outputs, kernelTime: conv.kernelTime,
                            kernelBands: conv.kernelBands, activation: conv.leakyReLU.map(Activation.leakyReLU) ?? .linear,
                            tensors: ["weights": TensorRef(appending: conv.weights, to: &weights),
                                      "bias": TensorRef(appending: conv.bias, to: &weights)])
            case .maxPool(let time, let bands):
                LayerHeader(type: .maxPool, time: time, bands: bands)
            }
        }
        weightCount = weights.count
    }

    func embedding(weights: [Float]) throws(ModelError) -> SpeechEmbedding {
        var built: [SpeechEmbedding.Layer] = []
        for (index, layer) in layers.enumerated() {
            func fail(_ reason: String) -> ModelError { .invalidLayer(index: index, kind: "speech embedding \(layer.type.rawValue)", reason: reason) }
            func required<T>(_ value: T?, _ name: String) throws(ModelError) -> T {
                guard let value else { throw fail("missing '\(name)'") }
                return value
            }
            func tensor(_ name: String) throws(ModelError) -> [Float] { try TensorRef.values(name, of: layer.tensors, in: weights, fail: fail) }
            switch layer.type {
            case .conv2d:
                let leakyReLU: SpeechEmbedding.Conv2DLayer.LeakyReLU? = switch try required(layer.activation, "activation") {
                case .linear: nil
                case .leakyReLU(let act): act
                }
                built.append(.conv2D(SpeechEmbedding.Conv2DLayer(
                    inputs: try required(layer.inputs, "inputs"), outputs: try required(layer.outputs, "outputs"),
                    kernelTime: try required(layer.kernelTime, "kernelTime"), kernelBands: try required(layer.kernelBands, "kernelBands"),
                    leakyReLU: leakyReLU,
                    weights: try tensor("weights"), bias: try tensor("bias"))))
            case .maxPool:
                built.append(.maxPool(time: try required(layer.time, "time"), bands: try required(layer.bands, "bands")))
            }
        }
        return SpeechEmbedding(windowFrames: windowFrames, hopFrames: hopFrames, melBands: melBands, outputs: outputs,
                               input: input, layers: built, provenance: provenance)
    }
}
