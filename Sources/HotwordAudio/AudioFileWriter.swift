import CSndFile
import Foundation

/// Writes WAV files through libsndfile.
///
/// Writes are atomic: the audio goes to a temporary file in the destination's directory (same file
/// system, so `rename` is atomic), which is flushed to disk and then renamed over the destination.
/// A crash, a full disk or any other failure leaves either the old file or the complete new one,
/// never a truncated WAV that a later training run would half-read.
public enum AudioFileWriter {
    /// How samples are stored.
    public enum Encoding: Sendable, CaseIterable, CustomStringConvertible {
        /// 16-bit signed integers: what microphones deliver and what the data set uses. Samples
        /// outside [-1, 1] are clipped (libsndfile would otherwise wrap them around).
        case pcm16
        /// 32-bit float: lossless for intermediate results such as augmented training audio.
        case float32

        var sndfileSubtype: Int32 {
            switch self {
            case .pcm16: Int32(SF_FORMAT_PCM_16)
            case .float32: Int32(SF_FORMAT_FLOAT)
            }
        }

        public var description: String {
            switch self {
            case .pcm16: "16-bit PCM"
            case .float32: "32-bit float"
            }
        }
    }

    /// Writes `samples` as a WAV file at `url`, replacing any existing file atomically.
    /// With more than one channel the samples are interleaved (frame by frame).
    public static func writeWAV(_ samples: [Float], to url: URL, sampleRate: Int, channels: Int = 1,
                                encoding: Encoding = .pcm16) throws(AudioFileError) {
        let path = url.path
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp").path
        // O_EXCL: never write through a file or link that someone else put there.
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else {
            throw .cannotWrite(path: path, reason: "cannot create temporary file \(temporary): \(SndFile.systemErrorText())")
        }
        var failure: AudioFileError?
        do throws(AudioFileError) {
            try encodeWAV(samples, sampleRate: sampleRate, channels: channels, encoding: encoding,
                          descriptor: descriptor, path: path)
            // Data must be on disk before the rename makes it visible, or a crash could leave an
            // empty file under the final name.
            if fsync(descriptor) != 0 {
                throw .cannotWrite(path: path, reason: "fsync failed: \(SndFile.systemErrorText())")
            }
        } catch {
            failure = error
        }
        if close(descriptor) != 0, failure == nil {
            failure = .cannotWrite(path: path, reason: "close failed: \(SndFile.systemErrorText())")
        }
        if failure == nil, rename(temporary, path) != 0 {
            failure = .cannotWrite(path: path, reason: "cannot rename \(temporary) to it: \(SndFile.systemErrorText())")
        }
        if let failure {
            unlink(temporary)
            throw failure
        }
    }

    /// Encodes a WAV into an open, empty, writable descriptor (which stays open). Separate from
    /// `writeWAV` so tests can aim it at a device that fails like a full disk (/dev/full).
    static func encodeWAV(_ samples: [Float], sampleRate: Int, channels: Int, encoding: Encoding,
                          descriptor: Int32, path: String) throws(AudioFileError) {
        guard let rate = Int32(exactly: sampleRate), rate > 0,
              let channelCount = Int32(exactly: channels), channelCount > 0,
              samples.count % channels == 0
        else {
            throw .cannotWrite(path: path, reason: "\(samples.count) samples at \(sampleRate) Hz in \(channels) channels "
                + "is not a positive rate with whole frames")
        }
        var info = SF_INFO(frames: 0, samplerate: rate, channels: channelCount,
                           format: Int32(SF_FORMAT_WAV) | encoding.sndfileSubtype, sections: 0, seekable: 0)
        guard sf_format_check(&info) != 0 else {
            throw .cannotWrite(path: path, reason: "libsndfile cannot write a \(encoding) WAV at \(sampleRate) Hz with \(channels) channels")
        }
        guard let file = sf_open_fd(descriptor, Int32(SFM_WRITE), &info, 0) else {
            throw .cannotWrite(path: path, reason: SndFile.errorText(nil))
        }
        sf_command(file, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        let frames = samples.count / channels
        let written = frames == 0 ? 0 : samples.withUnsafeBufferPointer {
            Int(sf_writef_float(file, $0.baseAddress, sf_count_t(frames)))
        }
        let writeError = written == frames ? nil : SndFile.errorText(file)
        // sf_close rewrites the header with the final sizes, so it can fail on a full disk too.
        let closeCode = sf_close(file)
        if let writeError {
            throw .cannotWrite(path: path, reason: "wrote \(written) of \(frames) frames: \(writeError)")
        }
        if closeCode != 0 {
            throw .cannotWrite(path: path, reason: "finishing the header failed: \(String(cString: sf_error_number(closeCode)))")
        }
    }
}
