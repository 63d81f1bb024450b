import Atomics
import Dispatch
import Foundation
import HotwordAudio
import HotwordCore
import Logging

/// What the listener hears, in stream order.
enum ListenerEvent: Sendable {
    /// A wake word; `position` is the capture position of the detection (the keyword's end).
    case wake(Detection, position: UInt64)
    /// The question after it has started.
    case speechStarted(position: UInt64)
    /// The question is complete.
    case utterance(Utterance)
    /// Nobody spoke after the wake word.
    case noSpeech
    /// Capture ran ahead of the listener and this much audio was lost (a busy machine).
    case audioDropped(samples: UInt64)
}

/// The two threads that hear: the *capture thread* moves audio from the microphone into a
/// `SampleRing` and never waits for anyone; the *listener thread* takes every sample from the
/// ring, in order, and either feeds the wake-word detector or, after a detection, the
/// utterance recorder. Both are plain threads: they block on the device and on a semaphore,
/// which must not happen on Swift's cooperative pool.
///
/// Positions stay straight: the detector's stream begins at a known capture position
/// (`detectorOrigin`), so a detection's time maps to the exact sample. When an utterance ends,
/// the detector is reset and restarts at the sample after it: the wake word and the question
/// are never heard twice, and nothing is skipped. If capture ever laps the listener, the lost
/// stretch is reported and the detector restarts after it rather than joining audio across it.
///
/// A reload (`replace(_:)`) hands new settings to the listener thread, which takes them up
/// between two periods while it is not recording; capture and the ring never stop. With a
/// service watchdog the listener thread itself sends the pings, so a stuck loop stops them.
final class Listener: @unchecked Sendable {
    // @unchecked: the detector, recorder and buffers are only touched by the listener thread;
    // `pendingSettings` is guarded by `pendingLock`; the rest is atomic or immutable.
    static let sampleRate = CaptureDevice.outputSampleRate

    private let ring: SampleRing
    private let capture: CaptureDevice
    private var detector: Detector
    private var recorder: UtteranceRecorder
    private let ownOutput: OwnOutputLog
    private let emit: @Sendable (ListenerEvent) -> Void
    /// The microphone gain's bit pattern: the capture thread applies it, a reload changes it.
    private let gain: ManagedAtomic<UInt32>
    /// How long the assistant's own sound lingers for the detector and for voice activity (samples).
    private var detectorEchoTail: UInt64
    private static let roomEchoTail = UInt64(sampleRate / 10)
    /// Per keyword: the sensitivity normally, and while the assistant's own sound may be heard.
    private var sensitivities: [ListenerSettings.Sensitivity]
    private let watchdog: ServiceNotifier?
    /// Where every wake is kept as a file, if anywhere, and how much audio before the detection it gets.
    private var wakeRecordings: WakeRecordings?
    private var wakeRecordingLead: Int
    private let pendingLock = NSLock()
    private var pendingSettings: ListenerSettings?
    private let settingsPending = ManagedAtomic(false)

    private let stopping = ManagedAtomic(false)
    /// False while detections are to be ignored (busy, with barge-in off).
    private let wakeEnabled = ManagedAtomic(true)
    private let audioReady = DispatchSemaphore(value: 0)
    private let finished = DispatchGroup()
    private let logger = Logger(label: "hotword.listener")

    // Listener-thread state
    private var detectorOrigin: UInt64 = 0
    private var lastDetection: UInt64 = 0
    private var lastWake: (keyword: String, date: Date)?
    private var nextPosition: UInt64 = 0
    private var raisedThresholds = false
    private var speechStartReported = false
    /// Lost audio not yet reported, and when it last was: a machine that stays overloaded is
    /// reported every `lossReportInterval`, not for every gap.
    private let lossReportInterval: Duration
    private var unreportedLoss: UInt64 = 0
    private var lossReported: ContinuousClock.Instant?
    private var nextWatchdogPing = ContinuousClock.now
    private let chunk: UnsafeMutableBufferPointer<Float>
    private var preRoll: UnsafeMutableBufferPointer<Float>
    /// Audio from before the detector's restart that it hears first (see `resumeDetecting`).
    private var priming: UnsafeMutableBufferPointer<Float>
    private let silence: UnsafeMutableBufferPointer<Float>

    /// - Parameters:
    ///   - ring: where capture puts the audio; its capacity is how far capture may run ahead of
    ///     the listener before audio is lost.
    ///   - ownOutput: when the assistant's own sound may be in `ring`'s audio.
    ///   - watchdog: pinged from the listener thread at its `watchdogInterval`.
    ///   - lossReportInterval: the least time between two reports of lost audio.
    init(capture: CaptureDevice, ring: SampleRing, ownOutput: OwnOutputLog, settings: ListenerSettings,
         watchdog: ServiceNotifier?, lossReportInterval: Duration = .seconds(5), emit: @escaping @Sendable (ListenerEvent) -> Void) {
        self.lossReportInterval = lossReportInterval
        self.capture = capture
        detector = settings.detector
        recorder = UtteranceRecorder(settings: settings.recording)
        sensitivities = settings.sensitivities
        gain = ManagedAtomic(settings.gain.bitPattern)
        detectorEchoTail = settings.echoTail
        self.watchdog = watchdog.flatMap { $0.watchdogInterval == nil ? nil : $0 }
        self.emit = emit
        self.ring = ring
        self.ownOutput = ownOutput
        let period = max(1, Int(capture.configuration.period.frames(atRate: Self.sampleRate)))
        chunk = .allocate(capacity: period)
        preRoll = .allocate(capacity: max(1, recorder.preRollSamples))
        silence = .allocate(capacity: period)
        silence.initialize(repeating: 0)
        priming = .allocate(capacity: max(1, settings.warmUp))
        wakeRecordings = settings.wakeRecordings
        wakeRecordingLead = Self.wakeRecordingLead(settings, recorder)
    }

    deinit {
        chunk.deallocate()
        preRoll.deallocate()
        priming.deallocate()
        silence.deallocate()
    }

    /// Starts both threads.
    func start() {
        startThread("hotword-capture", captureAudio)
        startThread("hotword-listener", listen)
    }

    /// Stops both threads and waits for them (the capture device is closed, which ends a read).
    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        capture.close()
        audioReady.signal()
        finished.wait()
    }

    /// Whether detections start a recording (false: they are ignored, as while busy without barge-in).
    func setWakeEnabled(_ enabled: Bool) {
        wakeEnabled.store(enabled, ordering: .relaxed)
    }

    /// Uses `settings` from the next period boundary at which no question is being recorded
    /// (the gain at once). Audio keeps flowing: the new detector first hears the recent audio the
    /// old one heard, so it can detect right away. A later call before then wins.
    func replace(_ settings: ListenerSettings) {
        gain.store(settings.gain.bitPattern, ordering: .relaxed)
        pendingLock.withLock { pendingSettings = settings }
        settingsPending.store(true, ordering: .releasing)
    }

    private func startThread(_ name: String, _ body: @escaping @Sendable () -> Void) {
        finished.enter()
        let thread = Thread { [finished] in
            Self.nameSystemThread(name)
            body()
            finished.leave()
        }
        thread.name = name
        thread.qualityOfService = .userInteractive
        thread.start()
    }

    /// Gives the calling thread `name` where `ps -L`, `top -H` and debuggers look (Foundation
    /// does not). Linux keeps 15 bytes.
    private static func nameSystemThread(_ name: String) {
        let descriptor = open("/proc/thread-self/comm", O_WRONLY)
        guard descriptor >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = write(descriptor, bytes, bytes.count)
        close(descriptor)
    }

    // MARK: Capture thread

    private func captureAudio() {
        let period = Int(capture.configuration.period.frames(atRate: Self.sampleRate))
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: max(1, period))
        defer { buffer.deallocate() }
        while !stopping.load(ordering: .relaxed) {
            let count = capture.read(into: buffer)
            if count == 0 { break }
            let gain = Float(bitPattern: self.gain.load(ordering: .relaxed))
            if gain != 1 {
                for index in 0..<count { buffer[index] *= gain }
            }
            ring.write(UnsafeBufferPointer(rebasing: buffer[..<count]))
            audioReady.signal()
        }
        // Closed: wake the listener so it sees `stopping`.
        stopping.store(true, ordering: .sequentiallyConsistent)
        audioReady.signal()
    }

    // MARK: Listener thread

    private func listen() {
        while true {
            if let interval = watchdog?.watchdogInterval {
                // Waking up without audio too: a microphone being reopened is not a stuck loop.
                _ = audioReady.wait(timeout: .now() + .nanoseconds(Int(interval / .nanoseconds(1))))
            } else {
                audioReady.wait()
            }
            if stopping.load(ordering: .relaxed) { break }
            betweenPeriods()
            // Stopping ends this at once, however much audio is still waiting.
            while !stopping.load(ordering: .relaxed) {
                let got = ring.read(into: chunk)
                guard got.count > 0 else { break }
                if got.start != nextPosition { skipGap(to: got.start) }
                nextPosition = got.end
                process(UnsafeBufferPointer(rebasing: chunk[..<got.count]), at: got.start)
                betweenPeriods()
            }
            // Loss held back by the interval is reported once it is due, gap or no gap.
            if unreportedLoss > 0 { reportLoss() }
        }
        if unreportedLoss > 0 { reportLoss(evenIfEarly: true) }
        recorder.cancel()
    }

    /// The watchdog ping when it is due, and new settings when there are any: a time check and
    /// an atomic load per period, nothing allocated.
    private func betweenPeriods() {
        if let watchdog, let interval = watchdog.watchdogInterval {
            let now = ContinuousClock.now
            if now >= nextWatchdogPing {
                watchdog.watchdog()
                nextWatchdogPing = now + interval
            }
        }
        if settingsPending.load(ordering: .acquiring), !recorder.isRecording { takeUpPendingSettings() }
    }

    private func takeUpPendingSettings() {
        settingsPending.store(false, ordering: .relaxed)
        guard let settings = pendingLock.withLock({ () -> ListenerSettings? in
            defer { pendingSettings = nil }
            return pendingSettings
        }) else { return }
        detector = settings.detector
        sensitivities = settings.sensitivities
        detectorEchoTail = settings.echoTail
        // Once per reload, on this thread: the recorder (its noise floor kept unless its settings
        // changed) and the buffers that fit it and the models.
        if settings.recording != recorder.settings {
            recorder = UtteranceRecorder(settings: settings.recording)
            preRoll.deallocate()
            preRoll = .allocate(capacity: max(1, recorder.preRollSamples))
        }
        priming.deallocate()
        priming = .allocate(capacity: max(1, settings.warmUp))
        wakeRecordings = settings.wakeRecordings
        wakeRecordingLead = Self.wakeRecordingLead(settings, recorder)
        // The new detector hears what the old one last heard (never audio from before its start,
        // so a wake word already answered is not heard again); what it detects in it is ignored.
        let heard = min(UInt64(priming.count), nextPosition - min(detectorOrigin, nextPosition))
        let primed = ring.readLast(Int(heard), endingAt: nextPosition, into: priming)
        restartDetector(at: primed.start)
        raisedThresholds = false
        _ = detector.process(UnsafeBufferPointer(rebasing: priming[..<primed.count]))
        logger.info("new wake-word settings in use from \(Double(nextPosition) / Double(Self.sampleRate)) s: \(detector.keywords.joined(separator: ", "))")
    }

    /// Audio from `nextPosition` to `position` was overwritten before it was read.
    private func skipGap(to position: UInt64) {
        let lost = position - nextPosition
        unreportedLoss += lost
        reportLoss()
        if recorder.isRecording {
            // Keep the utterance's timing: the lost stretch becomes silence.
            var remaining = lost
            var at = nextPosition
            while remaining > 0, recorder.isRecording {
                let count = Int(min(remaining, UInt64(silence.count)))
                record(UnsafeBufferPointer(rebasing: silence[..<count]), at: at)
                remaining -= UInt64(count)
                at += UInt64(count)
            }
        }
        if !recorder.isRecording { restartDetector(at: position) }
    }

    /// Reports the lost audio not yet reported, unless the last report was less than
    /// `lossReportInterval` ago.
    private func reportLoss(evenIfEarly: Bool = false) {
        let now = ContinuousClock.now
        guard evenIfEarly || lossReported.map({ now - $0 >= lossReportInterval }) ?? true else { return }
        logger.warning("the listener fell behind: \(Double(unreportedLoss) / Double(Self.sampleRate)) s of audio lost")
        emit(.audioDropped(samples: unreportedLoss))
        unreportedLoss = 0
        lossReported = now
    }

    private func process(_ samples: UnsafeBufferPointer<Float>, at position: UInt64) {
        if recorder.isRecording {
            record(samples, at: position)
        } else {
            detect(samples, at: position)
        }
    }

    private func detect(_ samples: UnsafeBufferPointer<Float>, at position: UInt64) {
        guard !samples.isEmpty else { return }
        recorder.listen(samples)
        let end = position + UInt64(samples.count)
        let ownSound = ownOutput.strongest(in: position..<end, tail: detectorEchoTail)
        setRaisedThresholds(ownSound != nil)
        let result = detector.process(samples)
        guard let detection = result.detections.first, wakeEnabled.load(ordering: .relaxed) else { return }
        guard ownSound != .wakeWordSpeech else {
            logger.info("'\(detection.keyword)' ignored: the assistant was saying it itself")
            return
        }
        let offset = UInt64((detection.time * Double(Self.sampleRate)).rounded())
        let detected = min(max(detectorOrigin + offset, position), end)
        emit(.wake(detection, position: detected))
        lastDetection = detected
        lastWake = (detection.keyword, Date())
        let kept = ring.readLast(recorder.preRollSamples, endingAt: detected, into: preRoll)
        recorder.start(preRoll: UnsafeBufferPointer(rebasing: preRoll[..<kept.count]))
        speechStartReported = false
        let rest = Int(detected - position)
        record(UnsafeBufferPointer(rebasing: samples[rest...]), at: detected)
    }

    private func record(_ samples: UnsafeBufferPointer<Float>, at position: UInt64) {
        guard !samples.isEmpty else { return }
        let end = position + UInt64(samples.count)
        switch recorder.record(samples, ownOutput: ownOutput.strongest(in: position..<end, tail: Self.roomEchoTail) != nil) {
        case .recording:
            break
        case .speechStarted:
            reportSpeechStart()
        case .finished(let utterance, let consumed):
            reportSpeechStart()
            emit(.utterance(utterance))
            keepWakeRecording(endingAt: position + UInt64(consumed))
            resumeDetecting(after: consumed, of: samples, at: position)
        case .noSpeech(let consumed):
            emit(.noSpeech)
            keepWakeRecording(endingAt: position + UInt64(consumed))
            resumeDetecting(after: consumed, of: samples, at: position)
        }
    }

    /// Half a second more than the detector needs before the detection: a listener hears the
    /// wake word begin, and the detector run over the file again has all it heard.
    private static func wakeRecordingLead(_ settings: ListenerSettings, _ recorder: UtteranceRecorder) -> Int {
        max(settings.warmUp + sampleRate / 2, recorder.preRollSamples)
    }

    /// Hands the wake and its question, up to `end`, to `wakeRecordings` (which writes on its
    /// own queue). The copy is made here, while the ring still holds the audio; of a recording
    /// longer than the ring, the part it still holds is kept.
    private func keepWakeRecording(endingAt end: UInt64) {
        guard let wakeRecordings, let lastWake else { return }
        let start = lastDetection - min(lastDetection, UInt64(wakeRecordingLead))
        var clip = [Float](repeating: 0, count: Int(end - start))
        let kept = clip.withUnsafeMutableBufferPointer { ring.readLast($0.count, endingAt: end, into: $0) }
        clip.removeLast(clip.count - kept.count)
        wakeRecordings.keep(clip, keyword: lastWake.keyword, at: lastWake.date)
    }

    private func reportSpeechStart() {
        guard !speechStartReported, let offset = recorder.speechStartAfterDetection else { return }
        speechStartReported = true
        emit(.speechStarted(position: lastDetection + UInt64(max(0, offset))))
    }

    /// The recording took the first `consumed` samples; the detector starts afresh with the rest.
    /// It first hears the audio between the detection and here (up to its warm-up length, with
    /// what it detects ignored): the wake word is never heard again, yet a new one can be
    /// detected right away rather than only after a warm-up.
    private func resumeDetecting(after consumed: Int, of samples: UnsafeBufferPointer<Float>, at position: UInt64) {
        let resume = position + UInt64(consumed)
        let primed = ring.readLast(Int(min(UInt64(priming.count), resume - lastDetection)), endingAt: resume, into: priming)
        restartDetector(at: primed.start)
        setRaisedThresholds(false)
        _ = detector.process(UnsafeBufferPointer(rebasing: priming[..<primed.count]))
        detect(UnsafeBufferPointer(rebasing: samples[consumed...]), at: resume)
    }

    private func restartDetector(at position: UInt64) {
        detector.reset()
        detectorOrigin = position
    }

    /// Lowers every keyword's sensitivity while the assistant's own sound may be heard, and
    /// restores it afterwards.
    private func setRaisedThresholds(_ raised: Bool) {
        guard raised != raisedThresholds else { return }
        raisedThresholds = raised
        for setting in sensitivities {
            try? detector.setSensitivity(raised ? setting.duringOwnOutput : setting.normal, for: setting.keyword)
        }
        logger.debug(raised ? "own sound in the microphone: wake-word thresholds raised" : "wake-word thresholds back to normal")
    }
}
