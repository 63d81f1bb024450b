import Foundation
import HotwordJSON

/// The model file format, versions 1 and 2 (documented in docs/model-format.md):
///
///     "HWKS"  u32 version  u32 headerLength  header (JSON, UTF-8)  zero padding to 4 bytes
///     float32 weights × header.weightCount  u32 CRC-32 of every byte before it
///
/// All integers and floats are little-endian. The JSON header says everything about the
/// model but its weights; each layer names its tensors by offset and count into the weights.
/// Like safetensors: readable with any JSON tool, weights copied straight in, nothing executed.
public enum ModelFile {
    public static let magic: [UInt8] = Array("HWKS".utf8)
    /// The newest version written and read; version 1 files (no companion network) are read too.
    public static let version: UInt32 = 2

    /// Serialises a model after validating it, so no invalid model is ever written. A model with
    /// a companion network is version 2, so that a reader of version 1 refuses it rather than run
    /// the first network alone at a threshold set for the two; every other model stays version 1.
    public static func encode(_ model: KeywordModel) throws(ModelError) -> [UInt8] {
        try model.validate()
        var weights: [Float] = []
        let layers = model.layers.map { LayerHeader($0, appendingTensorsTo: &weights) }
        let embedding = model.frontend.embedding.map { SpeechEmbeddingHeader($0, appendingTensorsTo: &weights) }
        let companion = model.companion.map { CompanionHeader($0, appendingTensorsTo: &weights) }
        let header = ModelHeader(keywords: model.keywords, frontend: model.frontend, embedding: embedding, layers: layers,
                                 companion: companion, detection: model.detection, training: model.training, weightCount: weights.count)
        return try TensorFile.encode(magic: magic, version: companion == nil ? 1 : version, header: header, weights: weights)
    }

    public static func decode(_ bytes: [UInt8]) throws(ModelError) -> KeywordModel {
        let (header, weights, fileVersion) = try TensorFile.decode(bytes, magic: magic, versions: 1...version, notThisKind: .notAModel,
                                                                   as: ModelHeader.self, weightCount: \.weightCount, tensors: \.tensors)
        guard (header.companion != nil) == (fileVersion == 2) else {
            throw .malformedHeader("a version \(fileVersion) file \(fileVersion == 2 ? "without" : "with") a companion network (version 2 is exactly the models with one)")
        }
        var frontend = header.frontend
        frontend.embedding = try header.embedding?.embedding(weights: weights)
        let model = KeywordModel(keywords: header.keywords, frontend: frontend, layers: try LayerHeader.layers(header.layers, weights: weights),
                                 companion: try header.companion?.companion(weights: weights),
                                 detection: header.detection, training: header.training)
        try model.validate()
        return model
    }
}

/// The container both model files share (a keyword model, a speech embedding): magic, version,
/// JSON header, float32 weights, CRC-32. Checks everything about the bytes but the header's meaning.
enum TensorFile {
    static let prefixLength = 12
    /// How deep a header's JSON may nest; a model's goes 5 deep. The decoder recurses per level.
    static let maximumHeaderDepth = 32

    static func encode(magic: [UInt8], version: UInt32, header: some Encodable, weights: [Float]) throws(ModelError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let json: [UInt8]
        do {
            json = Array(try encoder.encode(header))
        } catch {
            throw .malformedHeader("cannot encode: \(error)")
        }
        var bytes = magic
        appendLittleEndian(version, to: &bytes)
        appendLittleEndian(UInt32(json.count), to: &bytes)
        bytes += json
        bytes += [UInt8](repeating: 0, count: padding(afterHeaderOf: json.count))
        bytes.reserveCapacity(bytes.count + 4 * weights.count + 4)
        for value in weights { appendLittleEndian(value.bitPattern, to: &bytes) }
        appendLittleEndian(CRC32.checksum(bytes), to: &bytes)
        return bytes
    }

    static func decode<Header: Decodable>(
        _ bytes: [UInt8], magic: [UInt8], versions supported: ClosedRange<UInt32>, notThisKind: ModelError,
        as: Header.Type, weightCount: (Header) -> Int, tensors: (Header) -> [TensorRef]
    ) throws(ModelError) -> (Header, [Float], version: UInt32) {
        guard bytes.count >= magic.count, Array(bytes[0..<magic.count]) == magic else {
            throw bytes.count < magic.count ? .truncated(expectedBytes: prefixLength, actualBytes: bytes.count) : notThisKind
        }
        guard bytes.count >= prefixLength else { throw .truncated(expectedBytes: prefixLength, actualBytes: bytes.count) }
        let version = readUInt32(bytes, at: 4)
        guard supported.contains(version) else { throw .unsupportedVersion(found: version, supported: supported.upperBound) }
        let headerLength = Int(readUInt32(bytes, at: 8))
        let weightsStart = prefixLength + headerLength + padding(afterHeaderOf: headerLength)
        guard bytes.count >= weightsStart + 4 else {
            throw .truncated(expectedBytes: weightsStart + 4, actualBytes: bytes.count)
        }
        let checksumMatches = CRC32.checksum(bytes[0..<(bytes.count - 4)]) == readUInt32(bytes, at: bytes.count - 4)

        let headerBytes = bytes[prefixLength..<(prefixLength + headerLength)]
        if JSONNesting.firstOffset(deeperThan: maximumHeaderDepth, in: headerBytes) != nil {
            if !checksumMatches { throw checksumError(bytes) }
            throw .malformedHeader("the JSON nests more than \(maximumHeaderDepth) levels deep")
        }
        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: Data(headerBytes))
        } catch {
            if !checksumMatches { throw checksumError(bytes) }
            throw .malformedHeader(describe(error, in: headerBytes))
        }
        let count = weightCount(header)
        guard count >= 0 else { throw .malformedHeader("weightCount \(count) is negative") }
        // Whatever the header claims, computing the length it implies must not overflow.
        let (weightBytes, overflowed) = count.multipliedReportingOverflow(by: 4)
        let (expectedLength, overflowedAgain) = (weightsStart + 4).addingReportingOverflow(weightBytes)
        guard !overflowed, !overflowedAgain else { throw .malformedHeader("weightCount \(count) is too large for any file") }
        if bytes.count < expectedLength { throw .truncated(expectedBytes: expectedLength, actualBytes: bytes.count) }
        if bytes.count > expectedLength { throw .trailingBytes(expectedBytes: expectedLength, actualBytes: bytes.count) }
        guard checksumMatches else { throw checksumError(bytes) }
        try checkTensorsFit(tensors(header), in: count)
        return (header, (0..<count).map { Float(bitPattern: readUInt32(bytes, at: weightsStart + 4 * $0)) }, version)
    }

    /// Each stored weight belongs to one tensor, so together the tensors hold at most `weightCount`
    /// floats. Checked before any is copied: overlapping tensors would otherwise copy the same
    /// weights again and again (10,000 layers of a 1.85 MB file asked for 2 GB).
    private static func checkTensorsFit(_ tensors: [TensorRef], in weightCount: Int) throws(ModelError) {
        var total = 0
        for tensor in tensors {
            guard tensor.count >= 0 else { throw .malformedHeader("a tensor of \(tensor.count) weights") }
            total += min(tensor.count, weightCount + 1)  // cannot overflow: stops below at the first excess
            guard total <= weightCount else {
                throw .malformedHeader("the \(tensors.count) tensors refer to more than the \(weightCount) stored weights; tensors must not overlap")
            }
        }
    }

    private static func checksumError(_ bytes: [UInt8]) -> ModelError {
        .checksumMismatch(stored: readUInt32(bytes, at: bytes.count - 4), computed: CRC32.checksum(bytes[0..<(bytes.count - 4)]))
    }

    private static func padding(afterHeaderOf length: Int) -> Int { (4 - length % 4) % 4 }

    private static func appendLittleEndian(_ value: UInt32, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    private static func readUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
    }

    private static func describe(_ error: any Error, in json: ArraySlice<UInt8>) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?:
            "missing key '\(path(context.codingPath + [key]))'"
        case .typeMismatch(let type, let context)?, .valueNotFound(let type, let context)?:
            "'\(path(context.codingPath))' should be \(type)"
        case .dataCorrupted(let context)?:
            context.codingPath.isEmpty ? JSONDecodingFailure.reason(error, in: json) : "'\(path(context.codingPath))': \(context.debugDescription)"
        default:
            "\(error)"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingCharacters(in: ["."])
    }
}

extension ModelHeader {
    /// Every tensor the header refers to: its layers', its embedding's, its companion's.
    var tensors: [TensorRef] {
        LayerHeader.tensors(of: layers) + (embedding?.tensors ?? [])
            + (companion.map { LayerHeader.tensors(of: $0.layers) + ($0.embedding?.tensors ?? []) } ?? [])
    }
}

private struct ModelHeader: Codable {
    var keywords: [String]
    var frontend: FrontendConfig
    /// The frontend's speech embedding, if it has one; absent in models without.
    var embedding: SpeechEmbeddingHeader?
    var layers: [LayerHeader]
    /// The second network on another front end (version 2 files only).
    var companion: CompanionHeader?
    var detection: DetectionDefaults
    var training: TrainingRecord
    var weightCount: Int
}

struct TensorRef: Codable {
    var offset: Int
    var count: Int

    /// Refers to `values`, appended to `weights`.
    init(appending values: [Float], to weights: inout [Float]) {
        offset = weights.count
        count = values.count
        weights += values
    }

    /// The values referred to, or nil if they lie outside `weights` (no sum can overflow, whatever the header says).
    func values(in weights: [Float]) -> [Float]? {
        guard offset >= 0, count >= 0, offset <= weights.count, count <= weights.count - offset else { return nil }
        return Array(weights[offset..<(offset + count)])
    }

    /// Tensor `name` of a layer's `tensors`, or the layer's error (`fail`) saying what is wrong.
    static func values(
        _ name: String, of tensors: [String: TensorRef]?, in weights: [Float], fail: (String) -> ModelError
    ) throws(ModelError) -> [Float] {
        guard let ref = tensors?[name] else { throw fail("missing tensor '\(name)'") }
        guard let values = ref.values(in: weights) else {
            throw fail("tensor '\(name)' (\(ref.count) weights from offset \(ref.offset)) lies outside the \(weights.count) stored weights")
        }
        return values
    }
}

/// A companion network: its front end (and embedding), its layers, its weight in the mean logit.
private struct CompanionHeader: Codable {
    var frontend: FrontendConfig
    var embedding: SpeechEmbeddingHeader?
    var layers: [LayerHeader]
    var weight: Float
    /// Optional: absent in files written before gates, and in ungated ones (read as no gate).
    var gate: CompanionGate?

    init(_ companion: CompanionNetwork, appendingTensorsTo weights: inout [Float]) {
        frontend = companion.frontend
        layers = companion.layers.map { LayerHeader($0, appendingTensorsTo: &weights) }
        embedding = companion.frontend.embedding.map { SpeechEmbeddingHeader($0, appendingTensorsTo: &weights) }
        weight = companion.weight
        gate = companion.gate
    }

    func companion(weights: [Float]) throws(ModelError) -> CompanionNetwork {
        var frontend = frontend
        do {
            frontend.embedding = try embedding?.embedding(weights: weights)
            return CompanionNetwork(frontend: frontend, layers: try LayerHeader.layers(layers, weights: weights), weight: weight, gate: gate)
        } catch {
            throw .invalidModel("companion network: \(error)")
        }
    }
}

private struct LayerHeader: Codable {
    enum Kind: String, Codable { case dense, conv1d, gru }
    var type: Kind
    var inputs: Int
    var outputs: Int
    var activation: Activation?
    var kernelSize: Int?
    var dilation: Int?
    var stride: Int?
    var depthwise: Bool?
    /// Absent means 1 (files written before grouped convolutions).
    var groups: Int?
    var tensors: [String: TensorRef]

    func layer(index: Int, weights: [Float]) throws(ModelError) -> Layer {
        func fail(_ reason: String) -> ModelError { .invalidLayer(index: index, kind: type.rawValue, reason: reason) }
        func tensor(_ name: String) throws(ModelError) -> [Float] { try TensorRef.values(name, of: tensors, in: weights, fail: fail) }
        func required<T>(_ value: T?, _ name: String) throws(ModelError) -> T {
            guard let value else { throw fail("missing '\(name)'") }
            return value
        }
        switch type {
        case .dense:
            return .dense(DenseLayer(inputs: inputs, outputs: outputs, activation: try required(activation, "activation"),
                                     weights: try tensor("weights"), bias: try tensor("bias")))
        case .conv1d:
            return .conv1D(Conv1DLayer(
                inputs: inputs, outputs: outputs, kernelSize: try required(kernelSize, "kernelSize"),
                dilation: dilation ?? 1, stride: stride ?? 1, depthwise: depthwise ?? false, groups: groups ?? 1,
                activation: try required(activation, "activation"), weights: try tensor("weights"), bias: try tensor("bias")))
        case .gru:
            return .gru(GRULayer(inputs: inputs, hidden: outputs, inputWeights: try tensor("inputWeights"),
                                 recurrentWeights: try tensor("recurrentWeights"), inputBias: try tensor("inputBias"),
                                 recurrentBias: try tensor("recurrentBias")))
        }
    }
}

extension LayerHeader {
    /// `layer`'s header, its tensors appended to `weights`.
    init(_ layer: Layer, appendingTensorsTo weights: inout [Float]) {
        func tensor(_ values: [Float]) -> TensorRef { TensorRef(appending: values, to: &weights) }
        switch layer {
        case .dense(let l):
            self.init(type: .dense, inputs: l.inputs, outputs: l.outputs, activation: l.activation,
                      tensors: ["weights": tensor(l.weights), "bias": tensor(l.bias)])
        case .conv1D(let l):
            self.init(type: .conv1d, inputs: l.inputs, outputs: l.outputs, activation: l.activation,
                      kernelSize: l.kernelSize, dilation: l.dilation, stride: l.stride, depthwise: l.depthwise,
                      groups: l.groups == 1 ? nil : l.groups, tensors: ["weights": tensor(l.weights), "bias": tensor(l.bias)])
        case .gru(let l):
            self.init(type: .gru, inputs: l.inputs, outputs: l.hidden,
                      tensors: ["inputWeights": tensor(l.inputWeights), "recurrentWeights": tensor(l.recurrentWeights),
                                "inputBias": tensor(l.inputBias), "recurrentBias": tensor(l.recurrentBias)])
        }
    }

    static func tensors(of headers: [LayerHeader]) -> [TensorRef] {
        headers.flatMap { $0.tensors.values }
    }

    static func layers(_ headers: [LayerHeader], weights: [Float]) throws(ModelError) -> [Layer] {
        var layers: [Layer] = []
        for (index, header) in headers.enumerated() {
            layers.append(try header.layer(index: index, weights: weights))
        }
        return layers
    }
}

/// CRC-32 (IEEE 802.3, as in zip and PNG).
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
