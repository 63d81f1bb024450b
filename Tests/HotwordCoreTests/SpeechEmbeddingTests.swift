import Foundation
import HotwordAudio
@testable import HotwordCore
import HotwordTestSupport
import Testing

/// The speech embedding in Models/ computes what openWakeWord's TensorFlow Lite files compute:
/// Tests/HotwordCoreTests/Fixtures/speech-embedding-reference.json holds their log-mel frames and
/// embeddings of a real recording (scripts/speech-embedding/reference.py).
@Suite struct SpeechEmbeddingTests {
    struct Reference: Decodable {
        var clip: String
        var mels: [[Float]]
        var embeddings: [[Float]]
    }

    static let embedding: SpeechEmbedding = {
        let url = TestPaths.projectRoot.appendingPathComponent("Models/speech_embedding.hwse")
        return try! SpeechEmbeddingFile.decode(Array(try! Data(contentsOf: url)))
    }()

    static let reference: Reference = {
        let url = TestPaths.projectRoot.appendingPathComponent("Tests/HotwordCoreTests/Fixtures/speech-embedding-reference.json")
        return try! JSONDecoder().decode(Reference.self, from: Data(contentsOf: url))
    }()

    /// The clip as openWakeWord frames it: its window (400 of 512 samples) starts 56 samples into each frame.
    static func referenceAudio() throws -> [Float] {
        Array(try AudioFileReader.read(TestPaths.sharedData.appendingPathComponent(reference.clip)).samples.dropFirst(56))
    }

    static func maximumDifference(_ a: [[Float]], _ b: [[Float]]) -> Float {
        zip(a, b).flatMap { zip($0, $1).map { abs($0 - $1) } }.max() ?? .infinity
    }

    @Test func theImportedNetworkHasTheShapeOfGooglesSpeechEmbedding() {
        let network = Self.embedding
        #expect((network.windowFrames, network.hopFrames, network.melBands, network.outputs) == (76, 8, 32, 96))
        #expect(network.shapes.last! == (1, 1, 96))
        #expect(network.multiplyAdds > 40_000_000 && network.multiplyAdds < 45_000_000, "\(network.multiplyAdds)")
        // Every pool's stride divides the 8-frame hop: a stream computes about an eighth of that.
        #expect(network.newRowsPerHop?.first == 8 && network.newRowsPerHop?.last == 1)
        #expect(network.multiplyAddsPerHop > 5_000_000 && network.multiplyAddsPerHop < 6_000_000, "\(network.multiplyAddsPerHop)")
        #expect(network.provenance["license"] == "Apache-2.0")
    }

    @Test func logMelFramesMatchTheReference() throws {
        let frames = try FeatureExtractor(config: SpeechEmbedding.melFrontend).frames(of: Self.referenceAudio())
        let network = Self.embedding
        let scale = 1 / Float(M_LN10), offset = 2 * log10(network.input.int16Scale) + network.input.offset
        var mapped = (0..<Self.reference.mels.count).map { t in frames[frame: t].map { $0 * scale + offset } }
        for group in stride(from: 0, to: mapped.count, by: network.hopFrames) {
            let members = group..<min(group + network.hopFrames, mapped.count)
            let floor = members.flatMap { mapped[$0] }.max()! - network.input.range
            for t in members { mapped[t] = mapped[t].map { max($0, floor) } }
        }
        // The reference rounds to 4 decimals; float32 FFTs of different libraries differ a little more.
        #expect(Self.maximumDifference(mapped, Self.reference.mels) < 2e-3)
    }

    /// The reference frames' embeddings, window after window, each computed whole or (`next`)
    /// from the last one's rows.
    static func embeddingsOfReferenceFrames(next: Bool) -> [[Float]] {
        embeddings(of: Self.reference.mels, firstEnd: 80, next: next)
    }

    /// The embeddings of the windows of `mels` ending at `firstEnd` and every hop after.
    static func embeddings(of mels: [[Float]], firstEnd: Int, next: Bool) -> [[Float]] {
        let network = Self.embedding
        let embedder = SpeechEmbedder(network: network)
        return stride(from: firstEnd, through: mels.count, by: network.hopFrames).map { end in
            let window = mels[(end - network.windowFrames)..<end].flatMap { $0 }
            var output = [Float](repeating: 0, count: network.outputs)
            output.withUnsafeMutableBufferPointer { out in
                next ? embedder.embedNext(window, into: out.baseAddress!) : embedder.embed(window, into: out.baseAddress!)
            }
            return output
        }
    }

    @Test func embeddingsOfTheReferenceFramesMatchTensorFlowLite() {
        let ours = Self.embeddingsOfReferenceFrames(next: false)
        #expect(ours.count == Self.reference.embeddings.count)
        let largest = Self.reference.embeddings.flatMap { $0 }.map(abs).max()!
        #expect(largest > 1, "the reference is not all zeros")
        #expect(Self.maximumDifference(ours, Self.reference.embeddings) < 1e-3 * largest)
    }

    /// A window 8 frames on from the last reuses its rows in every layer and computes the new
    /// ones: the same embeddings as computing each window whole, to float rounding.
    @Test func aWindowAfterTheLastReusesItsRows() {
        let whole = Self.embeddingsOfReferenceFrames(next: false), streamed = Self.embeddingsOfReferenceFrames(next: true)
        let largest = whole.flatMap { $0 }.map(abs).max()!
        #expect(streamed.count == whole.count && streamed.count > 5)
        #expect(streamed[0] == whole[0], "the first window is computed whole")
        #expect(Self.maximumDifference(streamed, whole) < 1e-5 * largest, "\(Self.maximumDifference(streamed, whole))")
    }

    /// Long enough that every layer's buffer runs out of room for new rows and moves its rows
    /// back to the front (the first layer's every 9 hops), several times.
    @Test func aLongStreamMatchesEveryWindowComputedWhole() {
        var generator = SeededGenerator(seed: 3)
        let reference = Self.reference.mels.flatMap { $0 }
        let mels = (0..<(Self.embedding.windowFrames + 70 * Self.embedding.hopFrames)).map { _ in
            (0..<Self.embedding.melBands).map { _ in reference.randomElement(using: &generator)! }
        }
        let whole = Self.embeddings(of: mels, firstEnd: Self.embedding.windowFrames, next: false)
        let streamed = Self.embeddings(of: mels, firstEnd: Self.embedding.windowFrames, next: true)
        let largest = whole.flatMap { $0 }.map(abs).max()!
        #expect(whole.count == 71 && largest > 0)
        #expect(Self.maximumDifference(streamed, whole) < 1e-5 * largest, "\(Self.maximumDifference(streamed, whole))")
    }

    @Test func theFrontendStreamsEmbeddingsOfAudioAsOpenWakeWordDoes() throws {
        var config = SpeechEmbedding.melFrontend
        config.embedding = Self.embedding
        let frames = try FeatureExtractor(config: config).frames(of: Self.referenceAudio())
        #expect(frames.featureCount == 96)
        let ours = (0..<Self.reference.embeddings.count).map { Array(frames[frame: $0]) }
        let largest = Self.reference.embeddings.flatMap { $0 }.map(abs).max()!
        #expect(Self.maximumDifference(ours, Self.reference.embeddings) < 1e-2 * largest)
        // The first embedding ends where the config says a fresh stream's first frame ends.
        #expect(config.frameCount(sampleCount: config.outputFrameLength) == 1)
        #expect(config.frameCount(sampleCount: config.outputFrameLength - 1) == 0)
        #expect(config.outputFrameShift == 1_280)
    }

    @Test func chunkingDoesNotChangeTheEmbeddings() throws {
        var config = SpeechEmbedding.melFrontend
        config.embedding = Self.embedding
        let audio = Array(try Self.referenceAudio().prefix(40_000))
        let whole = try FeatureExtractor(config: config).frames(of: audio)
        let extractor = try FeatureExtractor(config: config)
        var streamed: [Float] = []
        var generator = SeededGenerator(seed: 7)
        var start = 0
        while start < audio.count {
            let count = min(Int.random(in: 1...3_000, using: &generator), audio.count - start)
            audio[start..<(start + count)].withUnsafeBufferPointer { chunk in
                extractor.process(chunk) { streamed.append(contentsOf: $0) }
            }
            start += count
        }
        #expect(whole.frameCount == config.frameCount(sampleCount: audio.count))
        #expect(streamed == whole.values)
    }

    @Test func aFileRoundTripsAndBadBytesAreNamed() throws {
        let bytes = try SpeechEmbeddingFile.encode(Self.embedding)
        #expect(try SpeechEmbeddingFile.decode(bytes) == Self.embedding)
        #expect(throws: ModelError.notASpeechEmbedding) { try SpeechEmbeddingFile.decode(Array("HWKS".utf8) + bytes.dropFirst(4)) }
        var flipped = bytes
        flipped[bytes.count / 2] ^= 0x40
        #expect {
            try SpeechEmbeddingFile.decode(flipped)
        } throws: { error in
            if case .checksumMismatch = error as? ModelError { true } else { false }
        }
    }

    @Test func aKeywordModelCarriesItsEmbeddingInItsOwnFile() throws {
        var frontend = SpeechEmbedding.melFrontend
        frontend.embedding = Self.embedding
        let head = DenseLayer(inputs: 96, outputs: 1, activation: .sigmoid,
                              weights: (0..<96).map { Float($0 % 7) / 100 - 0.03 }, bias: [0.1])
        let model = KeywordModel(keywords: ["test"], frontend: frontend, layers: [.dense(head)])
        let decoded = try ModelFile.decode(try ModelFile.encode(model))
        #expect(decoded == model)
        #expect(decoded.frontend.embedding == Self.embedding)
    }

    @Test func anEmbeddingOnOtherLogMelSettingsIsRefused() {
        var frontend = FrontendConfig()
        frontend.embedding = Self.embedding
        #expect(throws: FrontendConfigError.speechEmbeddingInvalid(reason: "log-mel settings other than SpeechEmbedding.melFrontend's")) {
            try frontend.validate()
        }
        var broken = Self.embedding
        broken.layers.removeLast()
        var config = SpeechEmbedding.melFrontend
        config.embedding = broken
        #expect(throws: FrontendConfigError.self) { try config.validate() }
    }
}
