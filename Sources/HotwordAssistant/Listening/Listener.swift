import Foundation
import HotwordAudio
import HotwordCore
import Logging
import Synchronization

/// The two threads that hear: the *capture thread* moves audio from the source (the
/// microphone) into a `SampleRing` and never waits for anyone; the *listener thread* takes
/// every sample from the ring, in order, into `Hearing` and hands on what it hears. Both are
/// plain threads: they block on the device and on a semaphore, which must not happen on Swift's
/// cooperative pool.
///
/// A reload (`replace(_:)`) hands new settings to the listener thread, which takes them up
/// between two periods while no question is being recorded; capture and the ring never stop.
/// When an answer has ended, `openFollowUp()` asks the listener thread to open the hearing's
/// follow-up window, which it does before the next period it hears (the hearing stays on its thread).
/// With a service watchdog the listener thread itself sends the pings, so a stuck loop stops them.
final class Listener: Sendable {
    private let source: any AudioSource
    private let ring: SampleRing
    private let periodFrames: Int
    private let emit: @Sendable (HearingEvent) -> Void
    /// The microphone gain's bit pattern: the capture thread applies it, a reload changes it.
    private let gain: Atomic<UInt32>
    /// False while detections are to be ignored (busy, with barge-in off).
    private let wakeEnabled = Atomic(true)
    private let stopping = Atomic(false)
    /// Set when an answer has ended, until the listener thread opens the follow-up window.
    private let followUpRequested = Atomic(false)
    /// The settings the listener thread starts with, then those of a reload until it takes them up.
    private let pending: Mutex<ListenerSettings?>
    private let watchdog: ServiceNotifier?
    private let audioReady = DispatchSemaphore(value: 0)
    private let finished = DispatchGroup()
    private let logger = Logger(label: "hotword.listener")

    /// - Parameters:
    ///   - periodFrames: how many samples the capture thread reads at a time.
    ///   - ring: where capture puts the audio (the one `settings.hearing` reads back); its
    ///     capacity is how far capture may run ahead of the listener before audio is lost.
    ///   - watchdog: pinged from the listener thread at its `watchdogInterval`.
    init(source: any AudioSource, periodFrames: Int, ring: SampleRing, settings: sending ListenerSettings,
         watchdog: ServiceNotifier?, emit: @escaping @Sendable (HearingEvent) -> Void) {
        self.source = source
        self.periodFrames = max(1, periodFrames)
        self.ring = ring
        gain = Atomic(settings.gain.bitPattern)
        pending = Mutex(settings)
        self.watchdog = watchdog.flatMap { $0.watchdogInterval == nil ? nil : $0 }
        self.emit = emit
    }

    /// Starts both threads.
    func start() {
        for (name, body) in [("hotword-capture", captureAudio), ("hotword-listener", listen)] {
            finished.enter()
            AudioThread.start(name) { [finished] in
                body()
                finished.leave()
            }
        }
    }

    /// Stops both threads and waits for them (the source is closed, which ends a read).
    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        source.close()
        audioReady.signal()
        finished.wait()
    }

    /// Whether detections start a recording (false: they are ignored, as while busy without barge-in).
    func setWakeEnabled(_ enabled: Bool) {
        wakeEnabled.store(enabled, ordering: .relaxed)
    }

    /// Opens the follow-up window (`Hearing.openFollowUp()`) from the next period the listener
    /// thread hears: an answer has ended. Dropped if a question is being recorded by then.
    func openFollowUp() {
        followUpRequested.store(true, ordering: .sequentiallyConsistent)
    }

    /// Uses the settings `make` builds from the next period boundary at which no question is
    /// being recorded (the gain at once); when it throws, nothing changes. A later call before
    /// then wins. (Built under the lock: a non-Sendable value made elsewhere cannot be put into
    /// a `Mutex` yet, swiftlang/swift#77199.)
    func replace(_ make: () throws(AssistantError) -> sending ListenerSettings) throws(AssistantError) {
        let gain = try pending.withLock { (pending: inout sending ListenerSettings?) throws(AssistantError) -> Float in
            pending = try make()
            return pending?.gain ?? 1
        }
        self.gain.store(gain.bitPattern, ordering: .relaxed)
    }

    private func captureAudio() {
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: periodFrames)
        defer { buffer.deallocate() }
        while !stopping.load(ordering: .relaxed) {
            let count = source.read(into: buffer)
            if count == 0 { break }
            let gain = Float(bitPattern: self.gain.load(ordering: .relaxed))
            if gain != 1 { for index in 0..<count { buffer[index] *= gain } }
            ring.write(UnsafeBufferPointer(rebasing: buffer[..<count]))
            audioReady.signal()
        }
        // Closed: wake the listener so it sees `stopping`.
        stopping.store(true, ordering: .sequentiallyConsistent)
        audioReady.signal()
    }

    private func listen() {
        guard var current = pending.withLock({ $0.take() }) else { return }
        let chunk = UnsafeMutableBufferPointer<Float>.allocate(capacity: periodFrames)
        defer { chunk.deallocate() }
        var nextPing = ContinuousClock.now
        while !stopping.load(ordering: .relaxed) {
            // With a watchdog, waking up without audio too: a microphone being reopened is not a stuck loop.
            _ = audioReady.wait(timeout: watchdog?.watchdogInterval.map { .now() + .nanoseconds(Int($0 / .nanoseconds(1))) } ?? .distantFuture)
            // Stopping ends this at once, however much audio is still waiting.
            while !stopping.load(ordering: .relaxed) {
                if let watchdog, let interval = watchdog.watchdogInterval, ContinuousClock.now >= nextPing {
                    watchdog.watchdog()
                    nextPing = .now + interval
                }
                if !current.hearing.isRecording, let next = pending.withLock({ $0.take() }) {
                    next.hearing.continueStream(of: current.hearing)
                    current = next
                    let from = Double(current.hearing.nextPosition) / Double(AudioFormat.sampleRate)
                    logger.info("new wake-word settings in use from \(from) s: \(current.hearing.keywords.joined(separator: ", "))")
                }
                let got = ring.read(into: chunk)
                guard got.count > 0 else { break }
                if followUpRequested.exchange(false, ordering: .sequentiallyConsistent) { current.hearing.openFollowUp() }
                let recordings = current.wakeRecordings
                current.hearing.hear(UnsafeBufferPointer(rebasing: chunk[..<got.count]), at: got.start,
                                     wakeEnabled: wakeEnabled.load(ordering: .relaxed)) { handle($0, keepingWakesIn: recordings) }
            }
        }
        let recordings = current.wakeRecordings
        current.hearing.finish { handle($0, keepingWakesIn: recordings) }
    }

    private static func seconds(_ samples: UInt64) -> Double { Double(samples) / Double(AudioFormat.sampleRate) }

    /// Logs what only the log needs, keeps the wake's audio if asked to, passes the rest on.
    private func handle(_ event: HearingEvent, keepingWakesIn recordings: WakeRecordings?) {
        switch event {
        case .ownWakeWord(let detection):
            logger.info("'\(detection.keyword)' ignored: the assistant was saying it itself")
        case .wakeChecking(let detection, _):
            logger.debug("'\(detection.keyword)' at \(String(format: "%.2f", detection.time)) s: waiting for the phrase check")
            emit(event)
        case .checkAbandoned(let detection):
            logger.info("'\(detection.keyword)' at \(String(format: "%.2f", detection.time)) s dropped before its phrase check (audio lost, or waking off)")
            emit(event)
        case .wakeRejected(let detection):
            logger.info("'\(detection.keyword)' at \(String(format: "%.2f", detection.time)) s not confirmed by the phrase check: ignored")
            emit(event)
        case .checkFailed(let detection, let reason):
            logger.error("the phrase check of '\(detection.keyword)' failed (\(reason)): the wake word counts")
        case .ownSoundHeard(let heard):
            logger.debug(heard ? "own sound in the microphone: wake-word thresholds raised" : "wake-word thresholds back to normal")
        case .utterance(_, let wake), .noSpeech(let wake):
            emit(event)
            recordings?.keep(wake, from: ring)
        case .followUpClosed(let position):
            logger.debug("follow-up window closed at \(Double(position) / Double(AudioFormat.sampleRate)) s: nobody spoke")
        case .audioLost(let samples):
            logger.warning("the listener fell behind: \(Self.seconds(samples)) s of audio lost (more is counted until audio flows again)")
            emit(event)
        case .audioFlowingAgain(let lost):
            logger.notice("audio flows again: \(Self.seconds(lost)) s lost in all since the first gap")
        case .wake, .speechStarted, .followUp:
            emit(event)
        }
    }
}
