import Atomics
import CALSA
import Foundation
import Logging

/// How to open a loudspeaker. Negotiation works as for `CaptureConfiguration`: the device is
/// asked for `sampleFormat` / `sampleRate` / `channels` and opened with the nearest it offers.
public struct PlaybackConfiguration: Sendable, Equatable {
    /// An ALSA PCM name, as `aplay -L` / `hotword devices` lists them.
    public var device: String
    /// The rate to ask the device for; whatever is played is resampled to the rate it accepts.
    public var sampleRate: Int
    public var channels: Int
    public var sampleFormat: AudioSampleFormat
    public var period: AudioFrameCount
    /// At least two periods. Also bounds how much audio is already queued when `stop()` comes.
    public var buffer: AudioFrameCount
    public var reopen: AudioReopenPolicy
    public var resamplerQuality: Resampler.Quality
    /// Initial `PlaybackDevice.volume`.
    public var volume: Float

    public init(device: String = "default", sampleRate: Int = 48_000, channels: Int = 1,
                sampleFormat: AudioSampleFormat = .signed16, period: AudioFrameCount = .milliseconds(20),
                buffer: AudioFrameCount = .milliseconds(200), reopen: AudioReopenPolicy = AudioReopenPolicy(),
                resamplerQuality: Resampler.Quality = .medium, volume: Float = 1) {
        self.device = device
        self.sampleRate = sampleRate
        self.channels = channels
        self.sampleFormat = sampleFormat
        self.period = period
        self.buffer = buffer
        self.reopen = reopen
        self.resamplerQuality = resamplerQuality
        self.volume = volume
    }
}

/// How a `play` or `drain` ended.
public enum PlaybackOutcome: Sendable, Equatable {
    /// Everything was queued (`play`) or played (`drain`).
    case completed
    /// `stop()` or `close()` cut it short.
    case interrupted
}

/// A loudspeaker playing mono Float samples of any rate, built to run unattended like
/// `CaptureDevice`. Consecutive `play` calls form one continuous stream; `drain()` waits until
/// it has been heard; `stop()` from another thread (barge-in) silences it at once.
///
/// One thread plays; any thread may call `stop()`, `close()`, set `volume` or look at `stats`.
public final class PlaybackDevice: @unchecked Sendable {  // ALSA state is only touched under `ioLock`
    public let configuration: PlaybackConfiguration

    private let connection: ALSAConnection
    private let ioLock = NSLock()
    private let closed = ManagedAtomic(false)
    /// Incremented by every `stop()`; a `play`/`drain` that sees it change was stopped.
    private let stopCount = ManagedAtomic(0)
    private let volumeBits: ManagedAtomic<UInt32>
    /// One period of device frames, converted from Float.
    private var rawFrames: UnsafeMutableRawBufferPointer
    /// The rates `resampler` converts between; nil before the first `play`.
    private var conversion: (sourceRate: Int, deviceRate: Int)?
    /// Nil when the source rate equals the device rate.
    private var resampler: Resampler?
    /// Resampled audio waiting to be written.
    private var resampled: [Float] = []
    private let logger = Logger(label: "hotword.audio.playback")

    /// Opens the device; throws when it cannot be opened or offers nothing usable.
    public init(_ configuration: PlaybackConfiguration = PlaybackConfiguration()) throws(AudioDeviceError) {
        self.configuration = configuration
        volumeBits = ManagedAtomic(Self.clampedVolume(configuration.volume).bitPattern)
        let request = ALSAStreamRequest(sampleFormat: configuration.sampleFormat, sampleRate: configuration.sampleRate,
                                        channels: configuration.channels, period: configuration.period,
                                        buffer: configuration.buffer)
        connection = try ALSAConnection(name: configuration.device, direction: .playback, request: request,
                                        reopenPolicy: configuration.reopen, logger: logger)
        rawFrames = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        allocateRawFrames()
    }

    deinit {
        connection.close()
        rawFrames.deallocate()
    }

    public var stats: AudioDeviceStats { connection.stats }

    /// Gain applied to everything played from now on, 0 (silent) to 1 (unchanged); values outside
    /// are clamped. Audio already queued in the device keeps its level.
    public var volume: Float {
        get { Float(bitPattern: volumeBits.load(ordering: .relaxed)) }
        set { volumeBits.store(Self.clampedVolume(newValue).bitPattern, ordering: .relaxed) }
    }

    /// How many times `stop()` has been called so far. A caller that decides to play after
    /// reading it passes it to `play`/`drain`, so that a `stop()` landing between its decision
    /// and the call still counts.
    public var stopGeneration: Int { stopCount.load(ordering: .sequentiallyConsistent) }

    /// Queues `samples` (mono, `sampleRate` Hz) for playing, blocking while the device buffer is
    /// full. Returns once all of it is queued (`.completed`) or when `stop()`/`close()` intervene:
    /// any `stop()` after `stopGeneration` was `generation` (default: from this call on).
    /// Throws only for a sample rate that cannot be converted to the device's.
    @discardableResult
    public func play(_ samples: UnsafeBufferPointer<Float>, sampleRate: Int,
                     unlessStoppedSince generation: Int? = nil) throws(AudioDeviceError) -> PlaybackOutcome {
        ioLock.lock()
        defer { ioLock.unlock() }
        let isInterrupted = interruption(since: generation ?? stopGeneration)
        var start = 0
        while start < samples.count {
            // Per block, because a reopened device may run at another rate.
            guard try prepareConversion(from: sampleRate, isInterrupted) else { return .interrupted }
            // Blocks of one device period keep `resampled` from growing with the input.
            let end = min(start + connection.stats.format.periodFrames, samples.count)
            guard writeConverted(UnsafeBufferPointer(rebasing: samples[start..<end]), isInterrupted) else { return .interrupted }
            start = end
        }
        return isInterrupted() ? .interrupted : .completed
    }

    /// Array convenience for `play(_:sampleRate:unlessStoppedSince:)`.
    @discardableResult
    public func play(_ samples: [Float], sampleRate: Int, unlessStoppedSince generation: Int? = nil) throws(AudioDeviceError) -> PlaybackOutcome {
        try samples.withUnsafeBufferPointer { (buffer) throws(AudioDeviceError) in
            try play(buffer, sampleRate: sampleRate, unlessStoppedSince: generation)
        }
    }

    /// Blocks until everything played so far has been heard (`.completed`), or until
    /// `stop()`/`close()` (`.interrupted`): any `stop()` after `stopGeneration` was `generation`
    /// (default: from this call on).
    @discardableResult
    public func drain(unlessStoppedSince generation: Int? = nil) -> PlaybackOutcome {
        ioLock.withLock {
            let isInterrupted = interruption(since: generation ?? stopGeneration)
            guard finishResampling(isInterrupted), connection.drain(isInterrupted: isInterrupted) else { return .interrupted }
            return .completed
        }
    }

    /// Silences the device now and discards everything queued; a `play` or `drain` running in
    /// another thread returns `.interrupted` promptly. Later calls to `play` work as usual.
    public func stop() {
        stopCount.wrappingIncrement(ordering: .sequentiallyConsistent)
        connection.wakeup.signal()
        ioLock.withLock {
            connection.discardQueued()
            resampler?.reset()
            resampled.removeAll(keepingCapacity: true)
        }
    }

    /// Stops playing and releases the device; later `play`/`drain` return `.interrupted`.
    /// Safe to call more than once and from any thread.
    public func close() {
        guard !closed.exchange(true, ordering: .sequentiallyConsistent) else { return }
        connection.wakeup.signal()
        ioLock.withLock { connection.close() }
        logger.debug("playback device '\(configuration.device)' closed")
    }

    /// Whether the device was closed, or stopped since `stopGeneration` was `generation`.
    private func interruption(since generation: Int) -> () -> Bool {
        { self.closed.load(ordering: .relaxed) || self.stopCount.load(ordering: .relaxed) != generation }
    }

    private static func clampedVolume(_ volume: Float) -> Float {
        volume.isNaN ? 0 : max(0, min(1, volume))
    }

    private func allocateRawFrames() {
        let format = connection.stats.format
        rawFrames.deallocate()
        rawFrames = .allocate(byteCount: format.periodFrames * format.bytesPerFrame, alignment: MemoryLayout<Int32>.alignment)
    }

    /// Makes sure audio at `sourceRate` is converted to the device's current rate, finishing the
    /// previous conversion first so its end is heard; false if interrupted meanwhile.
    private func prepareConversion(from sourceRate: Int, _ isInterrupted: () -> Bool) throws(AudioDeviceError) -> Bool {
        let deviceRate = connection.stats.format.sampleRate
        if let conversion, conversion.sourceRate == sourceRate, conversion.deviceRate == deviceRate { return true }
        guard finishResampling(isInterrupted) else { return false }
        conversion = nil
        resampler = nil
        if sourceRate != deviceRate {
            do throws(ResamplerError) {
                resampler = try Resampler(from: Double(sourceRate), to: Double(deviceRate), quality: configuration.resamplerQuality)
            } catch {
                throw .invalidRequest(device: configuration.device, direction: .playback,
                                      problem: "audio at \(sourceRate) Hz cannot be played: \(error)")
            }
            let ratio = Double(deviceRate) / Double(sourceRate)
            resampled.reserveCapacity(Int((Double(connection.stats.format.periodFrames) * ratio).rounded(.up)) + 64)
        }
        conversion = (sourceRate, deviceRate)
        return true
    }

    /// Writes the resampler's tail, so the end of the stream is heard; false if interrupted.
    private func finishResampling(_ isInterrupted: () -> Bool) -> Bool {
        guard let resampler else { return true }
        resampled.removeAll(keepingCapacity: true)
        do throws(ResamplerError) {
            try resampler.flush(appendingTo: &resampled)
        } catch {
            logger.error("playback device '\(configuration.device)': resampling failed, tail dropped: \(error)")
            resampler.reset()
            return true
        }
        return resampled.withUnsafeBufferPointer { writeDeviceRate($0, isInterrupted) }
    }

    /// Resamples `chunk` if needed and writes it; false if interrupted.
    private func writeConverted(_ chunk: UnsafeBufferPointer<Float>, _ isInterrupted: () -> Bool) -> Bool {
        guard let resampler else { return writeDeviceRate(chunk, isInterrupted) }
        resampled.removeAll(keepingCapacity: true)
        do throws(ResamplerError) {
            try resampler.process(chunk, appendingTo: &resampled)
        } catch {
            // libsamplerate only fails on invalid arguments, which `makeResampler` rules out;
            // losing a block is better than failing an announcement.
            logger.error("playback device '\(configuration.device)': resampling failed, block dropped: \(error)")
            resampler.reset()
            return true
        }
        return resampled.withUnsafeBufferPointer { writeDeviceRate($0, isInterrupted) }
    }

    /// Converts `samples` (already at the device rate) period by period and writes them; false if interrupted.
    private func writeDeviceRate(_ samples: UnsafeBufferPointer<Float>, _ isInterrupted: () -> Bool) -> Bool {
        var done = 0
        while done < samples.count {
            let format = connection.stats.format
            let count = min(format.periodFrames, samples.count - done)
            ALSASampleConversion.upmix(UnsafeBufferPointer(rebasing: samples[done..<(done + count)]), volume: volume,
                                       format: format, into: rawFrames.baseAddress!)
            switch writeRawFrames(count, format: format, isInterrupted) {
            case .written:
                done += count
            case let .reopened(after: written):
                // The device may have come back with another format: convert the rest again.
                allocateRawFrames()
                done += written
            case .interrupted:
                return false
            }
        }
        return true
    }

    private enum RawWrite {
        case written
        case reopened(after: Int)
        case interrupted
    }

    /// Writes the first `count` frames of `rawFrames`.
    private func writeRawFrames(_ count: Int, format: AudioStreamFormat, _ isInterrupted: () -> Bool) -> RawWrite {
        var written = 0
        while written < count {
            let raw = rawFrames.baseAddress! + written * format.bytesPerFrame
            switch connection.transfer(isInterrupted: isInterrupted, { pcm in
                snd_pcm_writei(pcm.handle, raw, snd_pcm_uframes_t(count - written))
            }) {
            case let .frames(frames): written += frames
            case .reopened: return .reopened(after: written)
            case .interrupted: return .interrupted
            }
        }
        return .written
    }
}
