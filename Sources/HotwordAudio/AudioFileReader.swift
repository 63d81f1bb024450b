import CSndFile
import Foundation

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
    /// The rate the wake-word model works at.
    public static let defaultSampleRate = 16_000
    /// Rates we accept from files: beyond these a file is almost certainly mislabelled.
    public static let acceptedSampleRates = 1_000...384_000

    /// The file's original rate, channels, length and format, without decoding it.
    public static func info(of url: URL) throws(AudioFileError) -> AudioFileInfo {
        try SoundFile(url).info
    }

    /// Decodes the whole file to mono at `sampleRate`. A valid file with no frames gives no samples.
    public static func read(_ url: URL, sampleRate: Int = defaultSampleRate,
                            quality: Resampler.Quality = .medium) throws(AudioFileError) -> DecodedAudio {
        let file = try SoundFile(url)
        let info = file.info
        let resampler: Resampler?
        do {
            resampler = info.sampleRate == sampleRate
                ? nil : try Resampler(from: Double(info.sampleRate), to: Double(sampleRate), quality: quality)
        } catch {
            throw .conversionFailed(path: file.path, error)
        }

        let blockFrames = 4_096
        var interleaved = [Float](repeating: 0, count: blockFrames * info.channels)
        var mono = [Float](repeating: 0, count: blockFrames)
        var samples: [Float] = []
        samples.reserveCapacity(Int(Double(info.frames) * Double(sampleRate) / Double(info.sampleRate)) + 64)
        while true {
            let framesRead = Int(interleaved.withUnsafeMutableBufferPointer {
                sf_readf_float(file.handle, $0.baseAddress, sf_count_t(blockFrames))
            })
            guard framesRead > 0 else { break }
            downmix(interleaved, channels: info.channels, frames: framesRead, into: &mono)
            do {
                try mono.withUnsafeBufferPointer { (block) throws(ResamplerError) in
                    let valid = UnsafeBufferPointer(rebasing: block[0..<framesRead])
                    if let resampler { try resampler.process(valid, appendingTo: &samples) } else { samples.append(contentsOf: valid) }
                }
            } catch {
                throw .conversionFailed(path: file.path, error)
            }
        }
        // A short read is the end of the file unless libsndfile recorded an error (I/O, truncation).
        if sf_error(file.handle) != 0 {
            throw .unreadable(path: file.path, reason: SndFile.errorText(file.handle))
        }
        do {
            try resampler?.flush(appendingTo: &samples)
        } catch {
            throw .conversionFailed(path: file.path, error)
        }
        // Float files may exceed full scale, and the sinc filter can overshoot on clipped input.
        for index in samples.indices { samples[index] = min(1, max(-1, samples[index])) }
        return DecodedAudio(samples: samples, sampleRate: sampleRate, source: info)
    }

    /// Mean of the channels: keeps the level of a signal present in every channel, unlike a sum.
    private static func downmix(_ interleaved: [Float], channels: Int, frames: Int, into mono: inout [Float]) {
        if channels == 1 {
            mono.withUnsafeMutableBufferPointer { target in
                interleaved.withUnsafeBufferPointer { source in
                    target.baseAddress!.update(from: source.baseAddress!, count: frames)
                }
            }
            return
        }
        let scale = 1 / Float(channels)
        for frame in 0..<frames {
            var sum: Float = 0
            for channel in 0..<channels { sum += interleaved[frame * channels + channel] }
            mono[frame] = sum * scale
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
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw errno == ENOENT || errno == ENOTDIR
                ? .missing(path: path) : .unreadable(path: path, reason: SndFile.systemErrorText())
        }
        var probe: UInt8 = 0
        guard pread(descriptor, &probe, 1, 0) >= 0 else {
            let reason = SndFile.systemErrorText()
            close(descriptor)
            throw .unreadable(path: path, reason: reason)
        }
        var raw = SF_INFO()
        guard let handle = sf_open_fd(descriptor, Int32(SFM_READ), &raw, 0) else {
            let reason = SndFile.errorText(nil)
            let code = sf_error(nil)
            close(descriptor)
            switch Int(code) {
            case SF_ERR_SYSTEM: throw .unreadable(path: path, reason: reason)
            case SF_ERR_UNSUPPORTED_ENCODING: throw .unsupported(path: path, reason: reason)
            default: throw .notAudio(path: path, reason: reason)
            }
        }
        let rate = Int(raw.samplerate), channels = Int(raw.channels)
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
