import HotwordAudio
import HotwordCore

/// The PCM format of a Wyoming audio stream, as `audio-start` and `audio-chunk` state it:
/// little-endian integer samples of `width` bytes (1 = unsigned 8-bit as in WAV, 2–4 signed),
/// `channels` interleaved, at `rate` Hz.
public struct PCMFormat: Sendable, Hashable, CustomStringConvertible {
    public var rate: Int
    public var width: Int
    public var channels: Int

    public static let rates = 1_000...384_000
    public static let widths = 1...4
    public static let channelCounts = 1...32

    public init(rate: Int, width: Int, channels: Int) {
        self.rate = rate
        self.width = width
        self.channels = channels
    }

    public var bytesPerFrame: Int { width * channels }

    public var description: String { "\(rate) Hz, \(width * 8)-bit, \(channels) channel\(channels == 1 ? "" : "s")" }

    /// Why this format cannot be converted, or nil.
    public var problem: String? {
        if !Self.rates.contains(rate) { return "rate \(rate) Hz is outside \(Self.rates.lowerBound)…\(Self.rates.upperBound)" }
        if !Self.widths.contains(width) { return "width \(width) is not 1, 2, 3 or 4 bytes" }
        if !Self.channelCounts.contains(channels) { return "channels \(channels) is outside 1…\(Self.channelCounts.upperBound)" }
        return nil
    }
}

/// Audio that cannot be converted: a format out of range, or bytes that are not whole frames.
public enum PCMConversionError: Error, Sendable, Equatable, CustomStringConvertible {
    case unsupportedFormat(PCMFormat, reason: String)
    case partialFrame(bytes: Int, bytesPerFrame: Int)
    case resampling(String)

    public var description: String {
        switch self {
        case .unsupportedFormat(let format, let reason): "unsupported audio format (\(format)): \(reason)"
        case .partialFrame(let bytes, let bytesPerFrame):
            "audio payload of \(bytes) bytes is not a whole number of \(bytesPerFrame)-byte frames (payload length mismatch)"
        case .resampling(let message): "resampling failed: \(message)"
        }
    }
}

/// Converts one stream of Wyoming PCM in any supported format to the detector's 16 kHz mono
/// Float in [-1, 1]: channels averaged, then resampled (band-limited, by `Resampler`).
/// One instance per stream; chunks may have any number of whole frames.
public final class PCMConverter {
    public let format: PCMFormat
    private let resampler: Resampler?
    private var mono: [Float] = []

    public init(format: PCMFormat) throws(PCMConversionError) {
        if let reason = format.problem { throw .unsupportedFormat(format, reason: reason) }
        self.format = format
        do {
            resampler = format.rate == AudioFormat.sampleRate
                ? nil : try Resampler(from: Double(format.rate), to: Double(AudioFormat.sampleRate))
        } catch {
            throw .resampling(error.description)
        }
    }

    /// Appends the converted samples of `bytes` (whole frames) to `output`. The resampler holds
    /// back a few milliseconds, which come out with the next chunk or `flush`.
    public func convert(_ bytes: [UInt8], appendingTo output: inout [Float]) throws(PCMConversionError) {
        guard bytes.count % format.bytesPerFrame == 0 else {
            throw .partialFrame(bytes: bytes.count, bytesPerFrame: format.bytesPerFrame)
        }
        guard let resampler else { return format.appendMono(bytes, to: &output) }
        mono.removeAll(keepingCapacity: true)
        format.appendMono(bytes, to: &mono)
        do { try resampler.process(mono, appendingTo: &output) } catch { throw .resampling(error.description) }
    }

    /// Ends the stream: appends what the resampler still holds.
    public func flush(appendingTo output: inout [Float]) throws(PCMConversionError) {
        do { try resampler?.flush(appendingTo: &output) } catch { throw .resampling(error.description) }
    }
}

extension PCMFormat {
    /// The samples of `bytes` (whole frames) as mono Float in [-1, 1] at this format's own rate.
    public func monoSamples(_ bytes: [UInt8]) throws(PCMConversionError) -> [Float] {
        if let reason = problem { throw .unsupportedFormat(self, reason: reason) }
        guard bytes.count % bytesPerFrame == 0 else { throw .partialFrame(bytes: bytes.count, bytesPerFrame: bytesPerFrame) }
        var output: [Float] = []
        appendMono(bytes, to: &output)
        return output
    }

    /// Mono samples in [-1, 1] as 16-bit little-endian PCM (×32767, clipped), as Wyoming servers take audio.
    public static func pcm16(_ samples: [Float]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(samples.count * 2)
        for sample in samples {
            let value = Int16(max(-1, min(1, sample.isFinite ? sample : 0)) * 32_767)
            bytes.append(UInt8(truncatingIfNeeded: value))
            bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        }
        return bytes
    }

    /// Averages the channels of each frame; integers are scaled by 2^(8·width − 1) so that
    /// 16-bit audio gives the same values as the rest of hotword (÷ 32768).
    func appendMono(_ bytes: [UInt8], to output: inout [Float]) {
        let frames = bytes.count / bytesPerFrame
        let scale = 1 / (Float(1 << (8 * width - 1)) * Float(channels))
        // Sign extension: shift the sample to the top of an Int32, then back down.
        let shift = Int32(32 - 8 * width)
        output.reserveCapacity(output.count + frames)
        bytes.withUnsafeBufferPointer { raw in
            var index = 0
            for _ in 0..<frames {
                var sum: Int64 = 0
                for _ in 0..<channels {
                    var value: UInt32 = 0
                    for byte in 0..<width { value |= UInt32(raw[index + byte]) << (8 * UInt32(byte)) }
                    index += width
                    // WAV's 8-bit audio is unsigned, centred on 128.
                    sum += width == 1 ? Int64(value) - 128 : Int64((Int32(bitPattern: value) << shift) >> shift)
                }
                output.append(Float(sum) * scale)
            }
        }
    }
}
