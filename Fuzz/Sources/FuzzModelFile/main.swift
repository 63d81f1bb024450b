import CLibFuzzer
import Foundation
import FuzzSupport
import HotwordCore

/// One input: the bytes of a `.hwks` model file. Loading may throw a `ModelError`; a model that
/// loads must also save, load again unchanged, and run, since the detector sizes its buffers
/// from the header.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzModelFile(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let model = try? ModelFile.decode(Array(fuzzInput(start, count))) else { return 0 }
    do {
        guard try ModelFile.decode(try ModelFile.encode(model)) == model else {
            fatalError("a loaded model changes when saved and loaded again")
        }
        _ = try Detector(models: [model]).process(TestSignal.samples)
    } catch {
        fatalError("a model that loads cannot be saved or run: \(error)")
    }
    return 0
}

/// Mutates a model file inside its frame — the JSON header mostly, sometimes the weights — and
/// writes the header length, padding and CRC-32 afresh. Byte mutations alone would almost never
/// get past the length field and the checksum to the checks behind them. One mutation in eight
/// is of the raw bytes, which keeps the framing checks themselves under test.
@_cdecl("LLVMFuzzerCustomMutator")
func mutateModelFile(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int, _ seed: UInt32) -> Int {
    guard seed % 8 != 0, var file = FramedModel(UnsafeBufferPointer(start: data, count: size)) else {
        return LLVMFuzzerMutate(data, size, maxSize)
    }
    let room = maxSize - file.framed.count
    if seed % 8 < 6 { mutate(&file.header, room: room) } else { mutate(&file.weights, room: room) }
    let bytes = file.framed
    guard bytes.count <= maxSize else { return LLVMFuzzerMutate(data, size, maxSize) }
    data.update(from: bytes, count: bytes.count)
    return bytes.count
}

/// libFuzzer's byte mutation of `bytes`, which may grow by up to `room` bytes.
func mutate(_ bytes: inout [UInt8], room: Int) {
    let capacity = max(bytes.count + max(room, 0), 1)
    var buffer = bytes + [UInt8](repeating: 0, count: capacity - bytes.count)
    let size = buffer.withUnsafeMutableBufferPointer { LLVMFuzzerMutate($0.baseAddress!, bytes.count, capacity) }
    bytes = Array(buffer.prefix(size))
}

/// A model file taken apart at its header length field (docs/model-format.md).
struct FramedModel {
    var version: [UInt8]
    var header: [UInt8]
    var weights: [UInt8]

    init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count >= 16, Array(bytes[0..<4]) == ModelFile.magic else { return nil }
        let length = Int(bytes[8]) | Int(bytes[9]) << 8 | Int(bytes[10]) << 16 | Int(bytes[11]) << 24
        guard length <= bytes.count - 16 else { return nil }
        version = Array(bytes[4..<8])
        header = Array(bytes[12..<(12 + length)])
        let weightsStart = min(12 + length + Self.padding(after: length), bytes.count - 4)
        weights = Array(bytes[weightsStart..<(bytes.count - 4)])
    }

    var framed: [UInt8] {
        var bytes = ModelFile.magic + version + withUnsafeBytes(of: UInt32(header.count).littleEndian, Array.init)
        bytes += header + [UInt8](repeating: 0, count: Self.padding(after: header.count)) + weights
        return bytes + withUnsafeBytes(of: crc32(bytes).littleEndian, Array.init)
    }

    static func padding(after length: Int) -> Int { (4 - length % 4) % 4 }
}

/// CRC-32 (IEEE), as the model format stores it.
func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return crc ^ 0xFFFF_FFFF
}

/// A quarter second of a chirp over noise: enough frames to reach every layer of a small model.
enum TestSignal {
    static let samples: [Float] = (0..<4_000).map { n in
        let t = Float(n) / 16_000
        let noise = Float((n &* 1_103_515_245 &+ 12_345) >> 16 & 0x7FFF) / 0x7FFF - 0.5
        return 0.3 * sin(2 * .pi * (300 + 4_000 * t) * t) + 0.05 * noise
    }
}

runFuzzer(fuzzModelFile)
