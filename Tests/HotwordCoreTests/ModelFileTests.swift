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
        return model
    }()

    @Test func saveThenLoadIsBitExact() throws {
        let bytes = try ModelFile.encode(model)
        let loaded = try ModelFile.decode(bytes)
        #expect(loaded == model)
        #expect(try ModelFile.encode(loaded) == bytes)
        #expect(Array(bytes.prefix(4)) == Array("HWKS".utf8))
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
        #expect(throws: ModelError.unsupportedVersion(found: 9, supported: 1)) { try ModelFile.decode(bytes) }
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
