import Foundation
import HotwordCore
import HotwordTestSupport
import Testing

@Suite struct ModelFileTests {
    let model: KeywordModel = {
        var model = NetworkFixtures.everyLayerKind(keywords: ["hey susi", "computer"], output: .softmax)
        model.training = TrainingRecord(command: "hotword train --keyword 'hey susi'", data: ["a/", "b/"], seed: 42,
                                        date: "2026-11-22", figures: ["miss_rate": 0.031])
        model.detection.refractorySeconds = 1.5
        model.detection.phraseCheck = PhraseCheckDefaults(thresholdPerPhone: 1e-20)
        return model
    }()

    @Test func saveThenLoadIsBitExact() throws {
        let bytes = try ModelFile.encode(model)
        let loaded = try ModelFile.decode(bytes)
        #expect(loaded == model)
        #expect(try ModelFile.encode(loaded) == bytes)
        #expect(Array(bytes.prefix(4)) == Array("HWKS".utf8))
    }

    /// Files written before models could ask for a second stage have no `phraseCheck`: they read
    /// as asking for none, and write back without the key.
    @Test func aFileWithoutAPhraseCheckAsksForNone() throws {
        let loaded = try decodeWithHeader { header in
            var detection = header["detection"] as! [String: Any]
            detection["phraseCheck"] = nil
            header["detection"] = detection
        }
        #expect(loaded.detection.phraseCheck == nil)
        #expect(!String(decoding: try ModelFile.encode(loaded), as: UTF8.self).contains("phraseCheck"))
        #expect(String(decoding: try ModelFile.encode(model), as: UTF8.self).contains("\"phraseCheck\""))
    }

    /// Which keywords are checked: the user's `checkPhrase` where set, else the model's wish, at
    /// the model's threshold (or the given default where the model has none).
    @Test func checkedPhrasesFollowTheUserThenTheModel() {
        var asking = NetworkFixtures.everyLayerKind(keywords: ["hey susi"], output: .sigmoid)
        asking.detection.phraseCheck = PhraseCheckDefaults(thresholdPerPhone: 1e-15)
        let plain = NetworkFixtures.everyLayerKind(keywords: ["computer", "jarvis"], output: .softmax)
        func checked(_ settings: [String: KeywordSettings]) -> [String: Double] {
            KeywordModel.checkedPhrases(of: [asking, plain], settings: settings, defaultThresholdPerPhone: 1e-30)
        }
        #expect(checked([:]) == ["hey susi": 1e-15])
        #expect(checked(["hey susi": KeywordSettings(checkPhrase: false), "jarvis": KeywordSettings(checkPhrase: true)]) == ["jarvis": 1e-30])
        #expect(checked(["computer": KeywordSettings(sensitivity: 0.7)]) == ["hey susi": 1e-15])
    }

    @Test func truncatedFilesSayHowShort() throws {
        let bytes = try ModelFile.encode(model)
        for length in [2, 10, 200, bytes.count - 1] {
            #expect {
                try ModelFile.decode(Array(bytes.prefix(length)))
            } throws: { error in
                guard case .truncated(let expected, let actual) = error as? ModelError else { return false }
                return actual == length && expected > length
            }
        }
    }

    @Test func rejectsOtherFilesAndVersions() throws {
        #expect(throws: ModelError.notAModel) { try ModelFile.decode(Array("RIFF....WAVEfmt ".utf8)) }
        var bytes = try ModelFile.encode(model)
        bytes[4] = 9
        #expect(throws: ModelError.unsupportedVersion(found: 9, supported: 2)) { try ModelFile.decode(bytes) }
        #expect(throws: ModelError.trailingBytes(expectedBytes: bytes.count, actualBytes: bytes.count + 3)) {
            try ModelFile.decode(try ModelFile.encode(model) + [1, 2, 3])
        }
    }

    @Test func aFlippedWeightBitFailsTheChecksum() throws {
        var bytes = try ModelFile.encode(model)
        bytes[bytes.count - 100] ^= 0x10
        #expect {
            try ModelFile.decode(bytes)
        } throws: { error in
            guard case .checksumMismatch = error as? ModelError else { return false }
            return "\(error)".contains("corrupt")
        }
    }

    /// Re-encodes a tampered header with a correct checksum, as a buggy exporter would.
    func decodeWithHeader(_ edit: (inout [String: Any]) -> Void) throws -> KeywordModel {
        let bytes = try ModelFile.encode(model)
        let headerLength = Int(bytes[8]) | Int(bytes[9]) << 8 | Int(bytes[10]) << 16 | Int(bytes[11]) << 24
        var header = try JSONSerialization.jsonObject(with: Data(bytes[12..<(12 + headerLength)])) as! [String: Any]
        edit(&header)
        let json = Array(try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]))
        let weightsStart = 12 + headerLength + (4 - headerLength % 4) % 4
        var out = Array(bytes[0..<8])
        withUnsafeBytes(of: UInt32(json.count).littleEndian) { out += $0 }
        out += json + [UInt8](repeating: 0, count: (4 - json.count % 4) % 4)
        out += bytes[weightsStart..<(bytes.count - 4)]
        return try ModelFile.decode(out + crc32LittleEndian(out))
    }

    func crc32LittleEndian(_ bytes: [UInt8]) -> [UInt8] {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return withUnsafeBytes(of: (crc ^ 0xFFFF_FFFF).littleEndian, Array.init)
    }

    @Test func wrongShapesNameTheLayer() throws {
        #expect(throws: ModelError.invalidLayer(index: 2, kind: "conv1d", reason: "expects 25 inputs but receives 24 (from the previous layer)")) {
            try decodeWithHeader { header in
                var layers = header["layers"] as! [[String: Any]]
                layers[2]["inputs"] = 25
                header["layers"] = layers
            }
        }
        #expect(throws: ModelError.invalidLayer(index: 4, kind: "gru", reason: "missing tensor 'recurrentBias'")) {
            try decodeWithHeader { header in
                var layers = header["layers"] as! [[String: Any]]
                var tensors = layers[4]["tensors"] as! [String: Any]
                tensors["recurrentBias"] = nil
                layers[4]["tensors"] = tensors
                header["layers"] = layers
            }
        }
        #expect(throws: ModelError.malformedHeader("missing key 'frontend'")) {
            try decodeWithHeader { $0["frontend"] = nil }
        }
        #expect(throws: ModelError.invalidModel("the softmax output has 3 values, expected 4 (background + keywords)")) {
            try decodeWithHeader { $0["keywords"] = ["a", "b", "c"] }
        }
    }

    /// Headers with absurd numbers (found by fuzzing: each crashed the loader or the detector on
    /// an arithmetic overflow or a huge allocation) are reported as errors.
    @Test func absurdNumbersInTheHeaderAreErrors() throws {
        func layer(_ index: Int, _ key: String, _ value: Any) -> (inout [String: Any]) -> Void {
            { header in
                var layers = header["layers"] as! [[String: Any]]
                layers[index][key] = value
                header["layers"] = layers
            }
        }
        func tensor(_ index: Int, _ name: String, offset: Int) -> (inout [String: Any]) -> Void {
            { header in
                var layers = header["layers"] as! [[String: Any]]
                var tensors = layers[index]["tensors"] as! [String: Any]
                tensors[name] = ["offset": offset, "count": 1]
                layers[index]["tensors"] = tensors
                header["layers"] = layers
            }
        }
        func section(_ name: String, _ key: String, _ value: Any) -> (inout [String: Any]) -> Void {
            { header in
                var section = header[name] as! [String: Any]
                section[key] = value
                header[name] = section
            }
        }
        let huge = 1 << 62
        let cases: [(edit: (inout [String: Any]) -> Void, error: ModelError)] = [
            ({ $0["weightCount"] = huge }, .malformedHeader("weightCount \(huge) is too large for any file")),
            (tensor(6, "bias", offset: .max), .invalidLayer(index: 6, kind: "dense", reason:
                "tensor 'bias' (1 weights from offset \(Int.max)) lies outside the 5059 stored weights")),
            (layer(6, "outputs", huge), .invalidLayer(index: 6, kind: "dense", reason: "inputs 8 and outputs \(huge) must lie in 1...4096")),
            (layer(4, "outputs", huge), .invalidLayer(index: 4, kind: "gru", reason: "inputs 16 and outputs \(huge) must lie in 1...4096")),
            (layer(0, "kernelSize", huge), .invalidLayer(index: 0, kind: "conv1d", reason:
                "kernelSize \(huge), dilation 1 and stride 2 must lie in 1...65536")),
            (layer(3, "dilation", 1 << 40), .invalidLayer(index: 3, kind: "grouped conv1d", reason:
                "kernelSize 3, dilation \(1 << 40) and stride 1 must lie in 1...65536")),
            (layer(3, "dilation", 60_000), .invalidLayer(index: 3, kind: "grouped conv1d", reason:
                "its taps span 120001 frames ((kernelSize − 1) × dilation + 1), more than 65536")),
            (layer(3, "groups", 3), .invalidLayer(index: 3, kind: "grouped conv1d", reason:
                "groups 3 must divide inputs 16 and outputs 16 (and be 1 for a depthwise convolution)")),
            (layer(3, "groups", 0), .invalidLayer(index: 3, kind: "conv1d", reason:
                "groups 0 must divide inputs 16 and outputs 16 (and be 1 for a depthwise convolution)")),
            (layer(1, "groups", 2), .invalidLayer(index: 1, kind: "depthwise conv1d", reason:
                "groups 2 must divide inputs 24 and outputs 24 (and be 1 for a depthwise convolution)")),
            (layer(0, "stride", 65_536), .invalidModel("the network's total stride (65536) and receptive field (262147) must stay within 65536 frames")),
            (section("frontend", "melBands", Int.max), .invalidModel(
                "frontend: invalid frontend config: melBands = \(Int.max); expected 1 to fftSize / 2 + 1 = 257 bands (one FFT bin each at least)")),
            (section("frontend", "frameShift", huge), .invalidModel(
                "frontend: invalid frontend config: frameShift = \(huge); expected a hop of 1 to 65536 samples")),
            (section("frontend", "frameShift", 1), .invalidModel("the network gives 8000.0 outputs per second, more than 1000")),
            (section("detection", "smoothingSeconds", 5.1), .invalidModel("smoothingSeconds 5.1 must lie in 0...5")),
            (section("detection", "refractorySeconds", 61), .invalidModel("refractorySeconds 61.0 must lie in 0...60")),
            (section("detection", "phraseCheck", ["thresholdPerPhone": 2]), .invalidModel("phraseCheck.thresholdPerPhone 2.0 must lie in (0, 1]")),
            (section("detection", "phraseCheck", ["thresholdPerPhone": 0]), .invalidModel("phraseCheck.thresholdPerPhone 0.0 must lie in (0, 1]")),
        ]
        for (edit, error) in cases {
            #expect(throws: error) { try decodeWithHeader(edit) }
        }
    }

    /// 10,000 layers pointing at the same weights made a 1.85 MB file ask for 2 GB before it
    /// was refused: the tensors are counted against the stored weights before any is copied.
    @Test func overlappingTensorsAreRefusedBeforeTheyAreCopied() throws {
        #expect(throws: ModelError.malformedHeader("the 20000 tensors refer to more than the 5059 stored weights; tensors must not overlap")) {
            try decodeWithHeader { header in
                let layers = header["layers"] as! [[String: Any]]
                header["layers"] = Array(repeating: layers[6], count: 10_000)
            }
        }
    }

    @Test func aHeaderNestedPastTheLimitOrWithAnUnrepresentableNumberSaysSo() throws {
        var nested: Any = 1
        for _ in 0..<40 { nested = ["a": nested] }
        #expect(throws: ModelError.malformedHeader("the JSON nests more than 32 levels deep")) {
            try decodeWithHeader { [nested] in $0["training"] = nested }
        }
        // It was "not valid JSON".
        #expect(throws: ModelError.malformedHeader("the number 1e+300 is out of range")) {
            try decodeWithHeader { $0["weightCount"] = 1e300 }
        }
    }

    /// A convolution's history is bounded too: 2 × 65536 frames × 256 channels is more than the
    /// streaming state allowed, though each number alone is within its limit.
    @Test func streamingStateIsBounded() {
        let channels = 256
        let model = KeywordModel(
            keywords: ["a"], frontend: FrontendConfig(fftSize: 2_048, melBands: channels),
            layers: [
                .conv1D(Conv1DLayer(inputs: channels, outputs: channels, kernelSize: 2, dilation: 65_535, depthwise: true,
                                    activation: .relu, weights: [Float](repeating: 0, count: 2 * channels),
                                    bias: [Float](repeating: 0, count: channels))),
                .dense(DenseLayer(inputs: channels, outputs: 1, activation: .sigmoid,
                                  weights: [Float](repeating: 0, count: channels), bias: [0])),
            ])
        #expect(throws: ModelError.invalidModel("the convolutions keep 33554432 past values, more than 16777216")) {
            try model.validate()
        }
    }

    /// What loads also runs: the detector accepts every model file the loader accepts, up to
    /// the limits (found by fuzzing: a smoothing of 5.1 s loaded, then the detector refused it).
    @Test func aModelAtTheLimitsLoadsAndRuns() throws {
        let loaded = try decodeWithHeader { header in
            var detection = header["detection"] as! [String: Any]
            detection["smoothingSeconds"] = DetectionDefaults.maximumSmoothingSeconds
            detection["refractorySeconds"] = DetectionDefaults.maximumRefractorySeconds
            header["detection"] = detection
        }
        let detector = try Detector(models: [loaded])
        _ = detector.process([Float](repeating: 0.1, count: 16_000))
    }

    @Test func invalidModelsAreNeverWritten() {
        var broken = model
        broken.detection.triggerLevel = 0
        #expect(throws: ModelError.invalidModel("triggerLevel 0 must be ≥ 1")) { try ModelFile.encode(broken) }
        broken = model
        if case .dense(var last) = broken.layers.last! {
            last.weights[0] = .nan
            broken.layers[broken.layers.count - 1] = .dense(last)
        }
        #expect(throws: ModelError.invalidLayer(index: 6, kind: "dense", reason: "weights contains NaN or infinity")) {
            try ModelFile.encode(broken)
        }
    }
}
