import Atomics
import CALSA
import Foundation
import HotwordCore
import Logging

/// How to open a microphone. The device is asked for `sampleFormat` / `sampleRate` / `channels`;
/// when it refuses, it is opened with what it offers (another of the three formats, the nearest
/// rate, the fewest channels) and the audio is converted to 16 kHz mono Float.
public struct CaptureConfiguration: Sendable, Equatable {
    /// An ALSA PCM name, as `arecord -L` / `hotword devices` lists them.
    public var device: String
    /// The rate to ask the device for. Any rate works (the result is resampled to 16 kHz); asking
    /// for the hardware's native rate avoids a second conversion in a sound server.
    public var sampleRate: Int
    public var channels: Int
    public var sampleFormat: AudioSampleFormat
    /// How much the device delivers per wakeup: latency versus CPU load.
    public var period: AudioFrameCount
    /// How much it can hold while we are busy; at least two periods. Larger survives longer stalls.
    public var buffer: AudioFrameCount
    public var reopen: AudioReopenPolicy
    public var resamplerQuality: Resampler.Quality

    public init(device: String = "default", sampleRate: Int = AudioFormat.sampleRate, channels: Int = 1,
                sampleFormat: AudioSampleFormat = .signed16, period: AudioFrameCount = .milliseconds(32),
                buffer: AudioFrameCount = .milliseconds(512), reopen: AudioReopenPolicy = AudioReopenPolicy(),
                resamplerQuality: Resampler.Quality = .medium) {
        self.device = device
        self.sampleRate = sampleRate
        self.channels = channels
        self.sampleFormat = sampleFormat
        self.period = period
        self.buffer = buffer
        self.reopen = reopen
        self.resamplerQuality = resamplerQuality
    }
}

/// A microphone delivering mono Float samples at `AudioFormat.sampleRate` (16 kHz), built to run unattended: overruns and
/// suspends are recovered, a device that disappears is reopened with backoff (reads block
/// meanwhile), one that is absent at the start can be waited for, and `close()` from any
/// thread ends a blocked `read` promptly.
///
/// One thread reads; any thread may call `close()` or look at `stats`.
public final class CaptureDevice: AudioSource, @unchecked Sendable {  // ALSA state is only touched under `ioLock`
    public let configuration: CaptureConfiguration

    private let connection: ALSAConnection
    private let ioLock = NSLock()
    private let closed = ManagedAtomic(false)
    /// Device frames as read (interleaved, device format), then averaged to mono at device rate.
    private var rawFrames: UnsafeMutableRawBufferPointer
    private var monoFrames: UnsafeMutableBufferPointer<Float>
    /// Converted samples not yet handed out, from `pendingStart` on.
    private var pending: [Float] = []
    private var pendingStart = 0
    /// Nil when the device runs at 16 kHz.
    private var resampler: Resampler?
    private let logger = Logger(label: "hotword.audio.capture")

    /// Opens the device; throws when it cannot be opened or offers nothing usable.
    ///
    /// With `waitIfAbsent` (for a daemon), a device ALSA knows but that cannot be opened now —
    /// not plugged in yet, busy, its sound server not started — is no error: the absence is
    /// logged and `read` waits for the device, trying with the reopen policy's backoff. A name
    /// ALSA does not know (`AudioDevices.isKnown`) still throws: that is a configuration mistake.
    public init(_ configuration: CaptureConfiguration = CaptureConfiguration(), waitIfAbsent: Bool = false) throws(AudioDeviceError) {
        self.configuration = configuration
        let request = ALSAStreamRequest(sampleFormat: configuration.sampleFormat, sampleRate: configuration.sampleRate,
                                        channels: configuration.channels, period: configuration.period,
                                        buffer: configuration.buffer)
        connection = try ALSAConnection(name: configuration.device, direction: .capture, request: request,
                                        reopenPolicy: configuration.reopen, logger: logger, waitIfAbsent: waitIfAbsent)
        rawFrames = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        monoFrames = UnsafeMutableBufferPointer(start: nil, count: 0)
        try prepareConversion()
    }

    deinit {
        connection.close()
        rawFrames.deallocate()
        monoFrames.deallocate()
    }

    public var stats: AudioDeviceStats { connection.stats }

    /// Fills `samples` with the next 16 kHz mono samples, blocking until all are there.
    /// Returns how many were written: `samples.count`, or fewer (down to 0) once the device is closed.
    public func read(into samples: UnsafeMutableBufferPointer<Float>) -> Int {
        ioLock.withLock {
            var written = 0
            while written < samples.count {
                if pendingStart < pending.count {
                    let count = min(samples.count - written, pending.count - pendingStart)
                    pending.withUnsafeBufferPointer { source in
                        _ = UnsafeMutableBufferPointer(rebasing: samples[written..<(written + count)])
                            .initialize(from: source[pendingStart..<(pendingStart + count)])
                    }
                    written += count
                    pendingStart += count
                } else if !readPeriod() {
                    break
                }
            }
            return written
        }
    }

    /// Array convenience for `read(into:)`: fills the whole array.
    public func read(into samples: inout [Float]) -> Int {
        samples.withUnsafeMutableBufferPointer { read(into: $0) }
    }

    /// Stops capturing and releases the device. A `read` blocked in another thread returns what it
    /// has; later reads return 0. Safe to call more than once.
    public func close() {
        guard !closed.exchange(true, ordering: .sequentiallyConsistent) else { return }
        connection.wakeup.signal()
        ioLock.withLock { connection.close() }
        logger.debug("capture device '\(configuration.device)' closed")
    }

    /// Reads one period from the device into `pending`; false once closed.
    private func readPeriod() -> Bool {
        pending.removeAll(keepingCapacity: true)
        pendingStart = 0
        let format = connection.stats.format
        let frames = format.periodFrames
        let raw = rawFrames.baseAddress!
        // A driver that reports frames without writing them (alsa-lib's file plugin past the end
        // of its file does) must yield silence, not the previous period again: replayed audio
        // could trigger the detector twice.
        rawFrames.initializeMemory(as: UInt8.self, repeating: 0)
        switch connection.transfer(isInterrupted: { closed.load(ordering: .relaxed) }, { pcm in
            snd_pcm_readi(pcm.handle, raw, snd_pcm_uframes_t(frames))
        }) {
        case .interrupted:
            return false
        case .reopened:
            do throws(AudioDeviceError) {
                try prepareConversion()
            } catch {
                // The new device's rate cannot be resampled: treat it as still broken.
                logger.error("\(error)")
                connection.close()
            }
            return true
        case let .frames(count):
            ALSASampleConversion.downmix(raw, frames: count, format: format, into: monoFrames.baseAddress!)
            let mono = UnsafeBufferPointer(rebasing: monoFrames[0..<count])
            guard let resampler else {
                pending.append(contentsOf: mono)
                return true
            }
            do throws(ResamplerError) {
                try resampler.process(mono, appendingTo: &pending)
            } catch {
                // libsamplerate only fails on invalid arguments, which `prepareConversion` rules out;
                // dropping one period is better than stopping a microphone that runs for months.
                logger.error("capture device '\(configuration.device)': resampling failed, period dropped: \(error)")
                resampler.reset()
            }
            return true
        }
    }

    /// Sizes the buffers and the resampler for the format the device is open with.
    private func prepareConversion() throws(AudioDeviceError) {
        let format = connection.stats.format
        rawFrames.deallocate()
        monoFrames.deallocate()
        rawFrames = .allocate(byteCount: format.periodFrames * format.bytesPerFrame,
                              alignment: MemoryLayout<Int32>.alignment)
        monoFrames = .allocate(capacity: format.periodFrames)
        if format.sampleRate == AudioFormat.sampleRate {
            resampler = nil
        } else {
            do throws(ResamplerError) {
                resampler = try Resampler(from: Double(format.sampleRate), to: Double(AudioFormat.sampleRate),
                                          quality: configuration.resamplerQuality)
            } catch {
                throw .unsupported(device: configuration.device, direction: .capture,
                                   what: "a sample rate we can convert (it offers \(format.sampleRate) Hz)",
                                   reason: error.description)
            }
        }
        let ratio = Double(AudioFormat.sampleRate) / Double(format.sampleRate)
        pending.reserveCapacity(Int((Double(format.periodFrames) * ratio).rounded(.up)) + 64)
    }
}
