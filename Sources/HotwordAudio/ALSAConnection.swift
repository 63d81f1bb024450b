import CALSA
import Foundation
import Logging

/// An ALSA device kept usable for months: transfers wait in `poll` (interruptible through the
/// wakeup), xruns and suspends are repaired with `snd_pcm_recover`, and anything worse (an
/// unplugged device, a crashed sound server) closes the device and reopens it with exponential
/// backoff until it works again or the owner gives up. A device that is absent at the start
/// can be waited for the same way. Each state change is logged once; a long outage is
/// mentioned again after 8, 16, 32… attempts.
///
/// Not thread-safe: the owning device serialises calls; only `stats` and `wakeup` are for any thread.
final class ALSAConnection {
    let name: String
    let direction: AudioDirection
    let wakeup: ALSAWakeup
    /// The open device; nil while it is lost and after `close`.
    private(set) var pcm: ALSAPCM?

    private let request: ALSAStreamRequest
    private let reopenPolicy: AudioReopenPolicy
    private let logger: Logger
    private var reopenDelay: Duration
    /// Set while there is no working device, until a reopened one has proved itself.
    private var outage: Outage?
    /// Frames moved since the last reopen. A device only counts as working again after a second
    /// of audio and two buffers: one that fails right after every reopen must keep backing off
    /// (and keep quiet in the log) rather than flap between "failed" and "works again".
    private var framesSinceReopen = 0
    private let statsLock = NSLock()
    private var currentStats: AudioDeviceStats

    /// The outcome of one `transfer`.
    enum Transfer {
        /// This many frames moved.
        case frames(Int)
        /// The device was reopened, possibly with another format: rebuild anything derived from it.
        case reopened
        /// The owner's `isInterrupted` became true.
        case interrupted
    }

    /// Why there is no working device, since when, and how often reopening was tried.
    private struct Outage {
        /// True when the device was absent from the start (never opened), false when it failed.
        let absentAtStart: Bool
        let since: ContinuousClock.Instant
        var attempts = 0
    }

    /// Opens the device; failure here is the caller's to report (a wrong name should not be
    /// retried). With `waitIfAbsent`, a device ALSA knows that cannot be opened now (unplugged,
    /// busy, its sound server not started yet) is not a failure: the connection starts without
    /// it and `transfer` keeps trying to open it, as after a loss.
    init(name: String, direction: AudioDirection, request: ALSAStreamRequest, reopenPolicy: AudioReopenPolicy,
         logger: Logger, waitIfAbsent: Bool = false) throws(AudioDeviceError) {
        guard reopenPolicy.initialDelay > .zero, reopenPolicy.maximumDelay >= reopenPolicy.initialDelay else {
            throw .invalidRequest(device: name, direction: direction,
                                  problem: "reopen delays \(reopenPolicy.initialDelay)…\(reopenPolicy.maximumDelay) are not positive and increasing")
        }
        self.name = name
        self.direction = direction
        self.request = request
        self.reopenPolicy = reopenPolicy
        self.logger = logger
        reopenDelay = reopenPolicy.initialDelay
        wakeup = try ALSAWakeup(device: name, direction: direction)
        do throws(AudioDeviceError) {
            let pcm = try ALSAPCM(name: name, direction: direction, request: request, wakeup: wakeup)
            self.pcm = pcm
            currentStats = AudioDeviceStats(format: pcm.format)
            logger.info("\(direction) device '\(name)' opened: \(pcm.format)")
        } catch {
            guard waitIfAbsent, case .cannotOpen = error, AudioDevices.isKnown(name) else { throw error }
            currentStats = AudioDeviceStats(format: try request.exactFormat(device: name, direction: direction))
            outage = Outage(absentAtStart: true, since: .now)
            logger.warning("\(error); waiting for it (trying every \(reopenPolicy.initialDelay) to \(reopenPolicy.maximumDelay))")
        }
    }

    var stats: AudioDeviceStats { statsLock.withLock { currentStats } }

    /// Runs `io` (one `snd_pcm_readi`/`snd_pcm_writei`) until it moves frames, waiting, recovering
    /// and reopening as needed.
    func transfer(isInterrupted: () -> Bool, _ io: (ALSAPCM) -> Int) -> Transfer {
        while !isInterrupted() {
            guard let pcm else {
                return reopen(isInterrupted: isInterrupted) ? .reopened : .interrupted
            }
            let result = io(pcm)
            if result > 0 {
                noteWorking(frames: result)
                return .frames(result)
            }
            if result != 0 && result != -Int(EAGAIN) {
                handleFailure(Int32(truncatingIfNeeded: result), of: pcm)
                continue
            }
            switch pcm.wait() {
            case .ready: continue
            case .woken: wakeup.clear()  // the loop condition tells whether it was meant for us
            case let .failed(code): handleFailure(code, of: pcm)
            case .stalled: markLost(reason: "no audio for \(pcm.stallTimeout)")
            }
        }
        return .interrupted
    }

    /// Waits until everything queued for playback has been played; false if interrupted first.
    func drain(isInterrupted: () -> Bool) -> Bool {
        guard let pcm else { return !isInterrupted() }  // lost: nothing is queued any more
        // Non-blocking: -EAGAIN means draining has begun and ends when the state leaves DRAINING.
        if snd_pcm_drain(pcm.handle) == -EAGAIN || snd_pcm_state(pcm.handle) == SND_PCM_STATE_DRAINING {
            let deadline = ContinuousClock.now + pcm.stallTimeout
            while snd_pcm_state(pcm.handle) == SND_PCM_STATE_DRAINING {
                if isInterrupted() { return false }
                guard ContinuousClock.now < deadline else {
                    markLost(reason: "still playing \(pcm.stallTimeout) after it should have finished")
                    return true
                }
                if wakeup.wait(.milliseconds(10)) { wakeup.clear() }
            }
        }
        // Any other drain result (an underrun, nothing queued) also leaves nothing to play.
        prepareForMore(pcm)
        return true
    }

    /// Drops whatever is queued, at once, and readies the device for more.
    func discardQueued() {
        guard let pcm else { return }
        snd_pcm_drop(pcm.handle)
        prepareForMore(pcm)
    }

    func close() {
        pcm = nil
    }

    private func prepareForMore(_ pcm: ALSAPCM) {
        let code = snd_pcm_prepare(pcm.handle)
        if code < 0 { markLost(reason: alsaErrorText(code)) }
    }

    private func handleFailure(_ code: Int32, of pcm: ALSAPCM) {
        if code == -EPIPE || code == -ESTRPIPE || code == -EINTR, snd_pcm_recover(pcm.handle, code, 1) >= 0 {
            guard code != -EINTR else { return }
            let count = statsLock.withLock {
                if code == -EPIPE { currentStats.xruns += 1; return currentStats.xruns }
                currentStats.suspends += 1
                return currentStats.suspends
            }
            // Powers of two: the first ones are visible, a device that keeps overrunning cannot flood the log.
            if count & (count - 1) == 0 {
                let what = code == -EPIPE ? (direction == .capture ? "overrun" : "underrun") : "suspend"
                logger.warning("\(direction) device '\(name)': \(what) recovered (\(count) so far)")
            }
            return
        }
        // Whatever snd_pcm_recover cannot repair (-ENODEV, -EIO, -EBADFD, a failed recovery) needs a fresh open.
        markLost(reason: alsaErrorText(code))
    }

    private func markLost(reason: String) {
        pcm = nil
        framesSinceReopen = 0
        if outage == nil {
            outage = Outage(absentAtStart: false, since: .now)
            logger.warning("""
                \(direction) device '\(name)' failed: \(reason); reopening it \
                (retrying every \(reopenPolicy.initialDelay) to \(reopenPolicy.maximumDelay))
                """)
        } else {
            logger.debug("\(direction) device '\(name)' failed again after reopening: \(reason)")
        }
    }

    /// Retries opening, with growing delays, until it works (true) or the owner interrupts (false).
    private func reopen(isInterrupted: () -> Bool) -> Bool {
        while !isInterrupted() {
            // Wait before every attempt: a device whose open works but whose first transfer fails
            // would otherwise be reopened in a tight loop.
            if wakeup.wait(reopenDelay) {
                wakeup.clear()
                continue
            }
            reopenDelay = min(reopenDelay * 2, reopenPolicy.maximumDelay)
            outage?.attempts += 1
            do throws(AudioDeviceError) {
                let pcm = try ALSAPCM(name: name, direction: direction, request: request, wakeup: wakeup)
                self.pcm = pcm
                let absentAtStart = outage?.absentAtStart == true
                statsLock.withLock {
                    if !absentAtStart { currentStats.reopens += 1 }
                    currentStats.format = pcm.format
                }
                logger.debug("\(direction) device '\(name)' \(absentAtStart ? "opened" : "reopened"): \(pcm.format)")
                return true
            } catch {
                // A long outage is mentioned again, ever more rarely: the log shows it is still
                // waited for without a line per attempt.
                if let outage, outage.attempts >= 8, outage.attempts & (outage.attempts - 1) == 0 {
                    let seconds = (ContinuousClock.now - outage.since).components.seconds
                    logger.warning("\(direction) device '\(name)' still unavailable after \(outage.attempts) attempts in \(seconds) s: \(error)")
                } else {
                    logger.debug("\(direction) device '\(name)' still unavailable: \(error)")
                }
            }
        }
        return false
    }

    private func noteWorking(frames: Int) {
        let format = statsLock.withLock {
            currentStats.frames += frames
            return currentStats.format
        }
        guard let outage else { return }
        framesSinceReopen += frames
        guard framesSinceReopen >= max(format.sampleRate, 2 * format.bufferFrames) else { return }
        self.outage = nil
        reopenDelay = reopenPolicy.initialDelay
        if outage.absentAtStart {
            logger.notice("\(direction) device '\(name)' is available after \(outage.attempts) attempt(s): \(format)")
        } else {
            logger.notice("\(direction) device '\(name)' works again after \(outage.attempts) reopen attempt(s): \(format)")
        }
    }
}
