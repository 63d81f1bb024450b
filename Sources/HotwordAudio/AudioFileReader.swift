import CSndFile
import Foundation
import HotwordCore

/// What a file holds, as stored (before any conversion).
public struct AudioFileInfo: Sendable, Equatable {
    public let sampleRate: Int
    public let channels: Int
    /// Frames (samples per channel) in the file.
    public let frames: Int
    /// The container as libsndfile names it, e.g. "WAV (Microsoft)", "FLAC (Free Lossless Audio Codec)".
    public let formatName: String
    /// The sample encoding as libsndfile names it, e.g. "Signed 24 bit PCM", "Vorbis".
    public let encodingName: String

    public var duration: Double { Double(frames) / Double(sampleRate) }
}

/// Samples decoded from a file, with what the file held originally.
public struct DecodedAudio: Sendable {
    /// Mono Float32 in [-1, 1] at `sampleRate`.
    public let samples: [Float]
    public let sampleRate: Int
    public let source: AudioFileInfo
}

/// Reads any file libsndfile reads (WAV, FLAC, OGG/Vorbis, AIFF, ...) into the mono 16 kHz
/// Float32 the detector works on: decoded in blocks as float, channels averaged, rate converted
/// with libsamplerate's sinc filter (linear interpolation would alias noise into the speech band).
public enum AudioFileReader {
    /// Rates we accept from files: beyond these a file is almost certainly mislabelled.
    public static let acceptedSampleRates = 1_000...384_000

    /// The file's original rate, channels, length and format, without decoding it.
    public static func info(of url: URL) throws(AudioFileError) -> AudioFileInfo {
        try SoundFile(url).info
    }

    /// Decodes the whole file to mono at `sampleRate`. A valid file with no frames gives no samples.
    public static func read(_ url: URL, sampleRate: Int = AudioFormat.sampleRate,
                            quality: Resampler.Quality = .medium) throws(AudioFileError) -> DecodedAudio {
        let stream = try AudioFileStream(url, sampleRate: sampleRate, quality: quality)
        var samples: [Float] = []
        // The header's length is only a hint (a corrupt one could claim days), so the up-front
        // reservation is capped; longer files simply grow the array.
        let expected = Double(stream.info.frames) * Double(sampleRate) / Double(stream.info.sampleRate)
        samples.reserveCapacity(Int(min(expected, Double(sampleRate) * 600)) + 64)
        var block: [Float] = []
        while try stream.read(into: &block) { samples.append(contentsOf: block) }
        return DecodedAudio(samples: samples, sampleRate: sampleRate, source: stream.info)
    }

    /// Mean of the channels: keeps the level of a signal present in every channel, unlike a sum.
    fileprivate static func downmix(_ interleaved: [Float], channels: Int, frames: Int, into mono: inout [Float]) {
        let scale = 1 / Float(channels)
        for frame in 0..<frames {
            var sum: Float = 0
            for channel in 0..<channels { sum += interleaved[frame * channels + channel] }
            mono[frame] = sum * scale
        }
    }
}

/// A file decoded block by block into the mono Float32 of `AudioFileReader.read`, the same
/// samples in the same order, so that memory stays the same for a file of any length.
public final class AudioFileStream {
    /// What the file holds, as stored.
    public let info: AudioFileInfo
    /// The rate of the samples read.
    public let sampleRate: Int
    /// Frames decoded per `read`: small enough to keep memory flat, large enough to be cheap.
    private static let blockFrames = 4_096
    private let file: SoundFile
    /// Nil when the file is at `sampleRate` already.
    private let resampler: Resampler?
    private var interleaved: [Float]
    private var mono: [Float]
    private var ended = false

    /// Opens the file; nothing is decoded yet.
    public init(_ url: URL, sampleRate: Int = AudioFormat.sampleRate,
                quality: Resampler.Quality = .medium) throws(AudioFileError) {
        file = try SoundFile(url)
        info = file.info
        self.sampleRate = sampleRate
        do {
            resampler = info.sampleRate == sampleRate
                ? nil : try Resampler(from: Double(info.sampleRate), to: Double(sampleRate), quality: quality)
        } catch {
            throw .conversionFailed(path: file.path, error)
        }
        interleaved = [Float](repeating: 0, count: Self.blockFrames * info.channels)
        mono = [Float](repeating: 0, count: info.channels == 1 ? 0 : Self.blockFrames)
    }

    /// Replaces `block` with the next samples (mono, at `sampleRate`, in [-1, 1]); it may come
    /// back empty while the resampler fills up. False, with `block` empty, once the file is done.
    public func read(into block: inout [Float]) throws(AudioFileError) -> Bool {
        block.removeAll(keepingCapacity: true)
        guard !ended else { return false }
        let framesRead = Int(interleaved.withUnsafeMutableBufferPointer {
            sf_readf_float(file.handle, $0.baseAddress, sf_count_t(Self.blockFrames))
        })
        if framesRead > 0 {
            if info.channels > 1 {
                AudioFileReader.downmix(interleaved, channels: info.channels, frames: framesRead, into: &mono)
            }
            try converting { () throws(ResamplerError) in
                try (info.channels == 1 ? interleaved : mono).withUnsafeBufferPointer { (buffer) throws(ResamplerError) in
                    let valid = UnsafeBufferPointer(rebasing: buffer[0..<framesRead])
                    if let resampler { try resampler.process(valid, appendingTo: &block) } else { block.append(contentsOf: valid) }
                }
            }
        } else {
            // A short read is the end of the file unless libsndfile recorded an error (I/O, truncation).
            if sf_error(file.handle) != 0 {
                throw .unreadable(path: file.path, reason: ErrorText.sndfile(file.handle))
            }
            ended = true
            try converting { () throws(ResamplerError) in try resampler?.flush(appendingTo: &block) }
        }
        // Float files may exceed full scale, and the sinc filter can overshoot on clipped input.
        for index in block.indices { block[index] = min(1, max(-1, block[index])) }
        return true
    }

    private func converting(_ body: () throws(ResamplerError) -> Void) throws(AudioFileError) {
        do {
            try body()
        } catch {
            throw .conversionFailed(path: file.path, error)
        }
    }
}

/// An open libsndfile handle with the file's validated info; closes on deinit.
private final class SoundFile {
    let path: String
    let handle: OpaquePointer
    let info: AudioFileInfo
    private let descriptor: Int32

    init(_ url: URL) throws(AudioFileError) {
        let path = url.path
        // We open the file ourselves because libsndfile reports missing files, directories and
        // I/O errors alike as "Format not recognised"; the first byte read tells them apart.
        // O_NONBLOCK: a FIFO must fail (pread: illegal seek) rather than hang waiting for a writer.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            throw errno == ENOENT || errno == ENOTDIR
                ? .missing(path: path) : .unreadable(path: path, reason: ErrorText.system())
        }
        var probe: UInt8 = 0
        guard pread(descriptor, &probe, 1, 0) >= 0 else {
            let reason = ErrorText.system()
            close(descriptor)
            throw .unreadable(path: path, reason: reason)
        }
        var raw = SF_INFO()
        guard let handle = sf_open_fd(descriptor, Int32(SFM_READ), &raw, 0) else {
            // libsndfile keeps the error of a failed open in one global: with two opens failing
            // at the same moment on different threads, the reason may belong to the other file.
            let reason = ErrorText.sndfile(nil)
            let code = sf_error(nil)
            close(descriptor)
            switch Int(code) {
            case SF_ERR_SYSTEM: throw .unreadable(path: path, reason: reason)
            case SF_ERR_UNSUPPORTED_ENCODING: throw .unsupported(path: path, reason: reason)
            default: throw .notAudio(path: path, reason: reason)
            }
        }
        let rate = Int(raw.samplerate), channels = Int(raw.channels)
        // libsndfile already refuses zero channels in the formats we know; checked anyway because
        // the downmix divides by the count.
        let problem: String? =
            if channels < 1 { "it has \(channels) channels" }
            else if !AudioFileReader.acceptedSampleRates.contains(rate) {
                "its sample rate \(rate) Hz is outside \(AudioFileReader.acceptedSampleRates.lowerBound) ... "
                    + "\(AudioFileReader.acceptedSampleRates.upperBound) Hz"
            } else { nil }
        if let problem {
            sf_close(handle)
            close(descriptor)
            throw .unsupported(path: path, reason: problem)
        }
        self.path = path
        self.handle = handle
        self.descriptor = descriptor
        info = AudioFileInfo(sampleRate: rate, channels: channels, frames: Int(raw.frames),
                             formatName: Self.formatName(raw.format & Int32(SF_FORMAT_TYPEMASK)),
                             encodingName: Self.formatName(raw.format & Int32(SF_FORMAT_SUBMASK)))
    }

    deinit {
        sf_close(handle)
        close(descriptor)
    }

    /// libsndfile's name for a major format or a subtype.
    private static func formatName(_ format: Int32) -> String {
        var query = SF_FORMAT_INFO(format: format, name: nil, extension: nil)
        let code = sf_command(nil, Int32(SFC_GET_FORMAT_INFO), &query, Int32(MemoryLayout<SF_FORMAT_INFO>.size))
        guard code == 0, let name = query.name else { return String(format: "format 0x%06x", format) }
        return String(cString: name)
    }
}
