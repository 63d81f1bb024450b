import Dispatch
import Foundation
import HotwordAudio
import HotwordCore
import Logging

/// Plays the assistant's sounds (the cue, spoken answers) one after another on a thread of its
/// own, because `PlaybackDevice.play` and `drain` block. Each sound is marked in the
/// `OwnOutputLog` from when it starts until it has been heard, so the listener knows which
/// audio may hold it.
///
/// `interrupt()` (barge-in, SUSI's `stop`) silences the device at once and drops what is
/// queued. Sounds carry the *epoch* they were made for: after an interrupt the epoch moves on,
/// and a sound of an older epoch that arrives late (say, an answer still being synthesised
/// when the user spoke again) is dropped instead of played.
///
/// `mute()` silences the sounds without stopping them (a wake word being checked over an answer):
/// they play on unheard, and are not marked as the assistant's own sound meanwhile, so what the
/// user says over them counts as speech. `unmute()` or `interrupt()` ends it.
final class AudioOutput: @unchecked Sendable {  // @unchecked: `queue`, `epoch`, `closed`, `playing`, `mutedVolume` are guarded by `condition` (the player waits on it, which a Mutex cannot)
    private struct Sound {
        let samples: [Float]
        let sampleRate: Int
        let kind: OwnSound
        let epoch: Int
        let finished: @Sendable (PlaybackOutcome) -> Void
    }

    private let device: PlaybackDevice
    private let ownOutput: OwnOutputLog
    private let condition = NSCondition()
    private var queue: [Sound] = []
    private var epoch = 0
    private var closed = false
    /// The sound on the device and its mark in `ownOutput` (none while muted).
    private var playing: (kind: OwnSound, mark: OwnOutputLog.Token?)?
    /// While muted, the volume to go back to.
    private var mutedVolume: Float?
    /// `PlaybackDevice.stop()` waits for a blocked `play` to notice; callers must not wait with it.
    private let stopper = DispatchQueue(label: "hotword.output.stop")
    private let stopped = DispatchSemaphore(value: 0)
    private let logger = Logger(label: "hotword.output")

    init(device: PlaybackDevice, ownOutput: OwnOutputLog) {
        self.device = device
        self.ownOutput = ownOutput
        AudioThread.start("hotword-output") { [self] in playSounds() }
    }

    /// The epoch sounds are played for now.
    var currentEpoch: Int {
        condition.withLock { epoch }
    }

    /// Output gain, 0…1 (while muted, the gain it will have again).
    var volume: Float {
        get { condition.withLock { mutedVolume ?? device.volume } }
        set {
            condition.withLock {
                if mutedVolume != nil { mutedVolume = newValue } else { device.volume = newValue }
            }
        }
    }

    /// Silences what plays and what follows until `unmute()` or `interrupt()`, without stopping it.
    func mute() {
        condition.withLock {
            guard mutedVolume == nil else { return }
            mutedVolume = device.volume
            device.volume = 0
            endMark()
        }
    }

    /// Lets what plays be heard again.
    func unmute() {
        condition.withLock { restoreVolume() }
    }

    /// The sound playing is no longer heard from now on. Called with `condition` held.
    private func endMark() {
        if let mark = playing?.mark { ownOutput.end(mark) }
        playing?.mark = nil
    }

    /// Called with `condition` held.
    private func restoreVolume() {
        guard let level = mutedVolume else { return }
        mutedVolume = nil
        device.volume = level
        if let kind = playing?.kind { playing?.mark = ownOutput.begin(kind) }
    }

    /// Queues a sound without waiting for it.
    func enqueue(_ samples: [Float], sampleRate: Int, kind: OwnSound) {
        condition.withLock {
            append(Sound(samples: samples, sampleRate: sampleRate, kind: kind, epoch: epoch, finished: { _ in }))
        }
    }

    /// Plays a sound made for `epoch` and returns once it has been heard (`.completed`), or
    /// when it was interrupted or is out of date (`.interrupted`).
    func play(_ samples: [Float], sampleRate: Int, kind: OwnSound, epoch soundEpoch: Int) async -> PlaybackOutcome {
        await withCheckedContinuation { continuation in
            condition.withLock {
                let sound = Sound(samples: samples, sampleRate: sampleRate, kind: kind, epoch: soundEpoch) {
                    continuation.resume(returning: $0)
                }
                if soundEpoch != epoch || closed {
                    sound.finished(.interrupted)
                } else {
                    append(sound)
                }
            }
        }
    }

    /// Stops what is playing, drops what is queued, unmutes, and starts a new epoch. Does not wait.
    func interrupt() {
        let dropped: [Sound] = condition.withLock {
            epoch += 1
            restoreVolume()
            defer { queue.removeAll() }
            return queue
        }
        for sound in dropped { sound.finished(.interrupted) }
        stopper.async { [device] in device.stop() }
    }

    /// Stops playing for good and waits for the thread to end.
    func close() {
        let dropped: [Sound] = condition.withLock {
            guard !closed else { return [] }
            closed = true
            condition.signal()
            defer { queue.removeAll() }
            return queue
        }
        for sound in dropped { sound.finished(.interrupted) }
        device.close()
        stopped.wait()
        stopped.signal()  // later calls to close() pass too
    }

    /// Called with `condition` held.
    private func append(_ sound: Sound) {
        queue.append(sound)
        condition.signal()
    }

    private func playSounds() {
        while let sound = nextSound() {
            // A stop requested before this sound was queued must not cut it: let it happen first.
            stopper.sync {}
            // An interrupt() after nextSound() returned must still silence this sound. One that
            // moved the epoch before the check below is seen by the check; one after it stops the
            // device after `stops` was read, which `play`/`drain` count even if the stop lands
            // before they start.
            let stops = device.stopGeneration
            guard isCurrent(sound) else {
                sound.finished(.interrupted)
                continue
            }
            let mark = ownOutput.begin(sound.kind)
            condition.withLock {
                if mutedVolume != nil { ownOutput.cancel(mark) }
                playing = (sound.kind, mutedVolume == nil ? mark : nil)
            }
            var outcome: PlaybackOutcome
            do {
                outcome = try device.play(sound.samples, sampleRate: sound.sampleRate, unlessStoppedSince: stops)
            } catch {
                logger.error("\(error)")
                outcome = .interrupted
            }
            if outcome == .completed { outcome = device.drain(unlessStoppedSince: stops) }
            condition.withLock {
                endMark()
                playing = nil
            }
            sound.finished(outcome)
        }
        stopped.signal()
    }

    /// The next sound to play, skipping out-of-date ones; nil once closed.
    private func nextSound() -> Sound? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            while queue.isEmpty && !closed { condition.wait() }
            if closed { return nil }
            let sound = queue.removeFirst()
            if sound.epoch == epoch { return sound }
            sound.finished(.interrupted)
        }
    }

    private func isCurrent(_ sound: Sound) -> Bool {
        condition.withLock { sound.epoch == epoch && !closed }
    }
}
