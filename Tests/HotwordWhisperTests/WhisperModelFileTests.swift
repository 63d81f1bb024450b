import Foundation
import HotwordTestSupport
@testable import HotwordWhisper
import Testing

/// A CTranslate2 model.bin written byte by byte, to damage in known ways.
private struct ModelBytes {
    var bytes: [UInt8] = []

    init(spec: String = "WhisperSpec", version: UInt32 = 6) {
        u32(version)
        string(spec)
        u32(3)
    }

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func u16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
    mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
    mutating func string(_ text: String) {
        u16(UInt16(text.utf8.count + 1))
        bytes += Array(text.utf8) + [0]
    }

    /// A variable's directory entry; `data` nil writes the bytes its shape and type call for.
    mutating func variable(_ name: String, shape: [UInt32], type: UInt8 = 4, byteCount: UInt32? = nil, data: [UInt8]? = nil) {
        string(name)
        u8(UInt8(shape.count))
        shape.forEach { u32($0) }
        u8(type)
        let size = CTranslate2ModelFile.ElementType(rawValue: type)!.size
        let count = byteCount ?? UInt32(shape.reduce(1, *)) * UInt32(size)
        u32(count)
        bytes += data ?? [UInt8](repeating: 0, count: Int(count))
    }

    /// A well-formed file of two variables and an alias.
    static func small(spec: String = "WhisperSpec") -> ModelBytes {
        var model = ModelBytes(spec: spec)
        model.u32(2)
        // 1.0 and −2.0 as float16.
        model.variable("decoder/embeddings/weight", shape: [2, 1], data: [0x00, 0x3C, 0x00, 0xC0])
        model.variable("decoder/num_heads", shape: [], type: 2, data: [6, 0])
        model.u32(1)
        model.string("decoder/projection/weight")
        model.string("decoder/embeddings/weight")
        return model
    }

    func write(in folder: URL) throws -> String {
        let path = folder.appendingPathComponent("model.bin").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}

@Suite struct WhisperModelFileTests {
    private func withFolder<T>(_ body: (URL) throws -> T) throws -> T {
        let folder = try TestPaths.temporaryDirectory("whisper-model")
        defer { try? FileManager.default.removeItem(at: folder) }
        return try body(folder)
    }

    private func error(reading bytes: ModelBytes) throws -> WhisperModelError? {
        try withFolder { folder in
            let path = try bytes.write(in: folder)
            do throws(WhisperModelError) {
                _ = try CTranslate2ModelFile(path: path)
                return nil
            } catch {
                return error
            }
        }
    }

    @Test func readsVariablesScalarsAndAliases() throws {
        try withFolder { folder in
            let file = try CTranslate2ModelFile(path: try ModelBytes.small().write(in: folder))
            #expect(file.specName == "WhisperSpec")
            #expect(try file.floats("decoder/embeddings/weight", shape: [2, 1]) == [1, -2])
            #expect(try file.floats("decoder/projection/weight", shape: [2, 1]) == [1, -2])
            #expect(try file.integer("decoder/num_heads") == 6)
            #expect(throws: WhisperModelError.wrongShape(path: file.path, variable: "decoder/embeddings/weight", found: [2, 1], expected: [1, 2])) {
                try file.floats("decoder/embeddings/weight", shape: [1, 2])
            }
            #expect(throws: WhisperModelError.missingVariable(path: file.path, variable: "encoder/conv1/weight")) {
                try file.shape("encoder/conv1/weight")
            }
        }
    }

    /// A download cut off anywhere is an error naming the part that is incomplete, never a crash.
    @Test func everyCutOffFileIsRejectedAsTruncated() throws {
        let whole = ModelBytes.small()
        for length in 0..<whole.bytes.count {
            var cut = whole
            cut.bytes.removeLast(whole.bytes.count - length)
            let error = try #require(try self.error(reading: cut), "cut to \(length) bytes")
            guard case .truncated(_, _, _, _, let fileSize) = error else {
                Issue.record("cut to \(length) bytes: \(error)")
                continue
            }
            #expect(fileSize == length)
        }
    }

    /// Counts and shapes are checked against the file before anything is allocated.
    @Test func rejectsHostileCountsAndShapes() throws {
        var huge = ModelBytes()
        huge.u32(1)
        huge.variable("a", shape: [0xFFFF_FFFF, 0xFFFF_FFFF], byteCount: 4, data: [0, 0, 0, 0])
        guard case .invalid(_, "a", _, let expected) = try #require(try error(reading: huge)) else { Issue.record("not .invalid"); return }
        #expect(expected.contains("fewer than 2^60"))

        // A shape that does fit in memory, but not in the file: cut off.
        var large = ModelBytes()
        large.u32(1)
        large.variable("d", shape: [51_864, 384], data: [])
        guard case .truncated(_, "the data of d", _, 51_864 * 384 * 2, _) = try #require(try error(reading: large)) else {
            Issue.record("not .truncated"); return
        }

        var mismatched = ModelBytes()
        mismatched.u32(1)
        mismatched.variable("b", shape: [3], byteCount: 4, data: [0, 0, 0, 0])
        guard case .invalid(_, "b", "4 bytes", let expectedBytes) = try #require(try error(reading: mismatched)) else {
            Issue.record("not .invalid"); return
        }
        #expect(expectedBytes.hasPrefix("6 bytes"))

        var manyVariables = ModelBytes()
        manyVariables.u32(0xFFFF_FFFF)
        guard case .truncated = try #require(try error(reading: manyVariables)) else { Issue.record("not .truncated"); return }

        var badType = ModelBytes()
        badType.u32(1)
        badType.string("c")
        badType.u8(0)
        badType.u8(9)
        guard case .invalid(_, "c", "of type code 9", _) = try #require(try error(reading: badType)) else { Issue.record("not .invalid"); return }

        var aliasToNothing = ModelBytes()
        aliasToNothing.u32(0)
        aliasToNothing.u32(1)
        aliasToNothing.string("x")
        aliasToNothing.string("y")
        guard case .missingVariable = try #require(try error(reading: aliasToNothing)) else { Issue.record("not .missingVariable"); return }

        guard case .unsupportedVersion(_, 5, 6) = try #require(try error(reading: ModelBytes(version: 5))) else {
            Issue.record("not .unsupportedVersion"); return
        }
    }

    @Test func aFolderWithAnotherModelOrNoneIsNamed() throws {
        try withFolder { folder in
            #expect {
                try WhisperModel(folder: folder.path)
            } throws: { error in
                if case .fileUnreadable(let path, _) = error as? WhisperModelError { path == "\(folder.path)/model.bin" } else { false }
            }
            let path = try ModelBytes.small(spec: "TransformerSpec").write(in: folder)
            #expect(throws: WhisperModelError.wrongSpec(path: path, found: "TransformerSpec", expected: "WhisperSpec")) {
                try WhisperModel(folder: folder.path)
            }
            // The right spec, but not a whole model.
            _ = try ModelBytes.small().write(in: folder)
            #expect(throws: WhisperModelError.missingVariable(path: path, variable: "encoder/num_heads")) {
                try WhisperModel(folder: folder.path)
            }
        }
    }

    @Test(.enabled(if: WhisperFixtures.modelFolder != nil, WhisperFixtures.skipReason))
    func tinyEnglishHasTheShapesOfTinyEn() throws {
        let model = try #require(WhisperFixtures.model).get()
        let dimensions = model.encoder.dimensions
        #expect(dimensions.width == 384 && dimensions.attention.heads == 6 && dimensions.bands == 80)
        #expect(dimensions.encoderLayers == 4 && dimensions.decoderLayers == 4)
        #expect(dimensions.audioPositions == 1500 && dimensions.textPositions == 448 && dimensions.vocabulary == 51_864)
        #expect(model.tokenizer.endOfText == 50_256 && model.tokenizer.startOfTranscript == 50_257 && model.tokenizer.noTimestamps == 50_362)
        #expect(model.suppressedFirst == [220, 50_256] && model.suppressed.count == 90)
    }
}
