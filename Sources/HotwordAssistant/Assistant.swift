import Atomics
import Foundation
import HotwordAudio
import HotwordCore
import HotwordModels
import HotwordSUSI
import Logging

/// The voice assistant: listens for the wake word, records the question, transcribes it, asks
/// SUSI, shows and speaks the answer, and listens again.
///
/// Threads: capture and listening run on two threads of their own (`Listener`), playing on a
/// third (`AudioOutput`); transcribing, asking and synthesising are async work on the engines'
/// own queues and threads. The conversation (`Conversation`, an actor) takes the listener's
/// events in order and runs one question at a time; a wake word while it is busy cancels that
/// question and silences the answer (barge-in).
///
/// Under systemd (`notifier`) it reports READY once listening and STOPPING when stopped, and
/// the listener thread sends the watchdog pings.
public final class Assistant: Sendable {
    private let listener: Listener
    private let output: AudioOutput?
    private let conversation: Conversation
    private let heard: AsyncStream<ListenerEvent>
    private let heardContinuation: AsyncStream<ListenerEvent>.Continuation
    private let stopped = ManagedAtomic(false)
    private let notifier: ServiceNotifier?
    private let logger = Logger(label: "hotword.assistant")

    /// Opens the audio devices and loads the models and the speech engines (pocketsphinx takes
    /// about a second, on its own queue). A microphone ALSA knows but that is absent does not
    /// fail: it is waited for (see `CaptureDevice.init(_:waitIfAbsent:)`).
    /// - Parameters:
    ///   - notifier: the service manager to tell about readiness, and to send watchdog pings to.
    ///   - onEvent: called for every event, one at a time, in order.
    public init(configuration: AssistantConfiguration, notifier: ServiceNotifier? = nil,
                onEvent: @escaping @Sendable (AssistantEvent) -> Void) async throws(AssistantError) {
        self.notifier = notifier
        ProcessMemory.returnLargeAllocationsToTheSystem()  // it runs for months: see ProcessMemory
        // The microphone first: a name ALSA does not know makes everything else moot, and its
        // error comes alone. A known microphone that is absent (not plugged in yet, its sound
        // server still starting) is waited for: listening begins when it appears.
        let capture: CaptureDevice
        do throws(AudioDeviceError) {
            capture = try CaptureDevice(configuration.audio.capture, waitIfAbsent: true)
        } catch {
            throw .capture(error)
        }
        let listening = try ListenerSettings(configuration: configuration)
        let parts = try await ConversationParts(configuration: configuration, keywords: listening.keywords)
        let ring = SampleRing(minimumCapacity: 30 * Listener.sampleRate)
        let ownOutput = OwnOutputLog(capturePosition: { ring.totalWritten })
        if parts.synthesizer != nil || parts.cue != nil {
            let playback: PlaybackDevice
            do throws(AudioDeviceError) { playback = try PlaybackDevice(configuration.audio.playback) } catch { throw .playback(error) }
            output = AudioOutput(device: playback, ownOutput: ownOutput)
        } else {
            output = nil
        }

        (heard, heardContinuation) = AsyncStream<ListenerEvent>.makeStream()
        let continuation = heardContinuation
        listener = Listener(capture: capture, ring: ring, ownOutput: ownOutput, settings: listening,
                            watchdog: notifier) { continuation.yield($0) }
        conversation = Conversation(listener: listener, output: output, parts: parts, configuration: configuration,
                                    onEvent: onEvent)
    }

    /// The configuration in use: the one given to `init`, or the last one `reload` took up.
    public var configuration: AssistantConfiguration {
        get async { await conversation.configuration }
    }

    /// Listens and answers until `stop()`.
    public func run() async {
        listener.start()
        await conversation.begin()
        if !stopped.load(ordering: .relaxed) {
            notifier?.ready(status: Self.status(listening: await conversation.configuration))
        }
        for await event in heard {
            await conversation.handle(event)
        }
        await conversation.finish()
        output?.close()
    }

    /// Stops listening; `run()` returns once the current question is abandoned. Safe from any
    /// thread (a signal handler's queue, say), more than once. Blocks until the audio threads end.
    public func stop() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        notifier?.stopping()
        listener.stop()
        heardContinuation.finish()
    }

    /// Takes up a changed configuration without stopping: capture and the audio ring go on, the
    /// listener switches to the new wake-word settings between two periods, and the next question
    /// uses the new speech engines, SUSI settings, cue and hook. Everything is loaded before
    /// anything is switched: when something fails (a model file missing or corrupt, say) the
    /// error is thrown and the old configuration stays in use. Devices, rates, buffers and the
    /// volume of `[audio]` need a restart; each such change is logged. One reload at a time.
    public func reload(_ configuration: AssistantConfiguration) async throws(AssistantError) {
        let previous = await conversation.configuration
        let listening = try ListenerSettings(configuration: configuration)
        let parts = try await ConversationParts(configuration: configuration, keywords: listening.keywords,
                                                reusing: (await conversation.parts, previous))
        listener.replace(listening)
        await conversation.use(parts, configuration: configuration)
        for key in Self.keysNeedingRestart(from: previous, to: configuration) {
            logger.warning("\(key) changed: that takes effect only when hotword is restarted")
        }
        if output == nil, parts.synthesizer != nil || parts.cue != nil {
            logger.warning("no loudspeaker was opened at start (no speech output and no cue): sound needs a restart")
        }
    }

    // MARK: Parts

    /// `[audio]` settings of devices already open.
    private static func keysNeedingRestart(from old: AssistantConfiguration, to new: AssistantConfiguration) -> [String] {
        let (before, after) = (old.audio, new.audio)
        return [
            ("audio.capture_device", before.captureDevice == after.captureDevice),
            ("audio.capture_rate", before.captureRate == after.captureRate),
            ("audio.period_ms", before.periodMilliseconds == after.periodMilliseconds),
            ("audio.buffer_ms", before.bufferMilliseconds == after.bufferMilliseconds),
            ("audio.playback_device", before.playbackDevice == after.playbackDevice),
            ("audio.playback_rate", before.playbackRate == after.playbackRate),
            ("audio.volume", before.volumePercent == after.volumePercent),
        ].filter { !$0.1 }.map(\.0)
    }

    /// What `systemctl status` shows while listening.
    private static func status(listening configuration: AssistantConfiguration) -> String {
        "listening for \(configuration.wake.models.joined(separator: ", ")) on \(configuration.audio.captureDevice)"
    }
}

/// The conversation: turns what the listener hears into questions and answers, one question at
/// a time, and keeps the state.
actor Conversation {
    private let listener: Listener
    private let output: AudioOutput?
    /// The engines and settings in use; a reload replaces them between two events.
    private(set) var parts: ConversationParts
    private(set) var configuration: AssistantConfiguration
    private let onEvent: @Sendable (AssistantEvent) -> Void
    private let logger = Logger(label: "hotword.assistant")

    private var state = AssistantState.listening
    /// The question being answered.
    private var session: (id: Int, task: Task<Void, Never>)?
    private var sessionsStarted = 0
    /// Planned answers and the timer, which outlive the question that set them.
    private var background: [Int: Task<Void, Never>] = [:]
    private var backgroundStarted = 0
    private var timer: Task<Void, Never>?

    init(listener: Listener, output: AudioOutput?, parts: ConversationParts, configuration: AssistantConfiguration,
         onEvent: @escaping @Sendable (AssistantEvent) -> Void) {
        self.listener = listener
        self.output = output
        self.parts = parts
        self.configuration = configuration
        self.onEvent = onEvent
    }

    /// Uses `parts` from now on; a question under way goes on with them from its next step.
    func use(_ parts: ConversationParts, configuration: AssistantConfiguration) {
        self.parts = parts
        self.configuration = configuration
    }

    func begin() {
        logger.info("state: listening")
        onEvent(.state(.listening))
    }

    func handle(_ event: ListenerEvent) {
        switch event {
        case .wake(let detection, let position):
            if let session {
                session.task.cancel()
                self.session = nil
                listener.setWakeEnabled(true)
                logger.info("barge-in: \(state) interrupted")
                emit(.bargeIn(interrupted: state))
            }
            // Whatever is playing (an answer, a reminder) gives way to the new question.
            output?.interrupt()
            logger.info("wake word '\(detection.keyword)' (score \(detection.score)) at \(Self.seconds(position)) s")
            emit(.wake(keyword: detection.keyword, score: detection.score, time: Self.seconds(position)))
            runHook(detection)
            if let cue = parts.cue { output?.enqueue(cue.samples, sampleRate: cue.sampleRate, kind: .sound) }
            setState(.recording)
        case .speechStarted(let position):
            emit(.utteranceStart(time: Self.seconds(position)))
        case .utterance(let utterance):
            emit(.utteranceEnd(duration: utterance.duration, reason: utterance.end))
            startSession(utterance)
        case .noSpeech:
            logger.info("no question after the wake word")
            emit(.noSpeech)
            setState(.listening)
        case .audioDropped(let samples):
            emit(.error(stage: .audio, message: "\(Self.seconds(samples)) s of audio lost: the machine is too busy"))
        }
    }

    /// Abandons the question and everything planned; `run()` is ending.
    func finish() async {
        let running = session?.task
        session?.task.cancel()
        session = nil
        for task in background.values { task.cancel() }
        background.removeAll()
        timer?.cancel()
        output?.interrupt()
        await running?.value
    }

    // MARK: One question

    private func startSession(_ utterance: Utterance) {
        sessionsStarted += 1
        let id = sessionsStarted
        if !parts.bargeIn { listener.setWakeEnabled(false) }
        setState(.transcribing)
        let epoch = output?.currentEpoch ?? 0
        let task = Task { await self.converse(utterance, session: id, epoch: epoch) }
        session = (id, task)
    }

    private func converse(_ utterance: Utterance, session id: Int, epoch: Int) async {
        defer { endSession(id) }
        let started = ContinuousClock.now
        let text: String
        do {
            text = try await parts.recognizer.transcribe(utterance.samples)
        } catch {
            // A wake word (or stop) meanwhile cancelled the question, and the recogniser failed
            // because of that: nothing went wrong, and the new question must not get an apology.
            guard isCurrent(id) else { return }
            emit(.error(stage: .transcribe, message: error.description))
            await reply("Sorry, I could not make out what you said.", epoch: epoch)
            return
        }
        guard isCurrent(id) else { return }
        logger.info("transcribed \(String(format: "%.1f", utterance.duration)) s in \(ContinuousClock.now - started)")
        emit(.transcript(text))
        guard !text.isEmpty else {
            await reply("Sorry, I didn't catch that.", epoch: epoch)
            return
        }
        setState(.asking, session: id)
        let reply: SUSIReply
        do {
            reply = try await parts.susi.ask(text)
        } catch .cancelled {
            return
        } catch {
            guard isCurrent(id) else { return }
            emit(.error(stage: .ask, message: error.description))
            await self.reply(error.spokenMessage, epoch: epoch)
            return
        }
        guard isCurrent(id) else { return }
        setState(.speaking, session: id)
        var currentEpoch = epoch
        await perform(parts.renderer.steps(for: reply), epoch: &currentEpoch, session: id)
    }

    /// Shows and says a message of the assistant's own (an apology, an error).
    private func reply(_ message: String, epoch: Int) async {
        emit(.answer("SUSI: \(message)"))
        _ = await say(message, epoch: epoch)
    }

    /// Performs SUSI's steps in order; stops when interrupted.
    private func perform(_ steps: [SUSIStep], epoch: inout Int, session id: Int?) async {
        for step in steps {
            if Task.isCancelled || (id != nil && !isCurrent(id!)) { return }
            switch step {
            case .print(let text):
                emit(.answer(text))
            case .speak(let text, _):
                if await say(text, epoch: epoch) == .interrupted { return }
            case .planned(let delay, let planned):
                schedule(after: delay, planned)
            case .setVolume(let percent):
                logger.info("volume set to \(percent) %")
                output?.volume = Float(percent) / 100
            case .stopSpeaking:
                output?.interrupt()
                epoch = output?.currentEpoch ?? epoch
            case .setTimer(let date):
                setTimer(for: date)
            case .resetTimer:
                logger.info("timer cleared")
                timer?.cancel()
                timer = nil
            case .playback(let control):
                logger.notice("SUSI asked to \(control.rawValue) media playback, which this assistant does not do")
            case .unknown(let note):
                logger.debug("\(note)")  // unknown actions: visible with --verbose
            }
        }
    }

    /// Synthesises and plays `text`; nil when there is no speech output or synthesis failed.
    private func say(_ text: String, epoch: Int) async -> PlaybackOutcome? {
        guard let synthesizer = parts.synthesizer, let output else { return nil }
        let audio: SynthesizedAudio
        do {
            audio = try await synthesizer.synthesize(text)
        } catch {
            emit(.error(stage: .speak, message: error.description))
            return nil
        }
        let kind: OwnOutputLog.Kind = parts.wakeWords.occur(in: text) ? .wakeWordSpeech : .sound
        return await output.play(audio.samples, sampleRate: audio.sampleRate, kind: kind, epoch: epoch)
    }

    private func endSession(_ id: Int) {
        guard isCurrent(id) else { return }
        session = nil
        listener.setWakeEnabled(true)
        setState(.listening)
        ProcessMemory.releaseFreeMemory()
    }

    private func isCurrent(_ id: Int) -> Bool {
        session?.id == id
    }

    // MARK: Later

    private func schedule(after delay: Duration, _ steps: [SUSIStep]) {
        backgroundStarted += 1
        let id = backgroundStarted
        logger.info("answer planned in \(SUSIStep.format(delay))")
        background[id] = Task {
            defer { background[id] = nil }
            do { try await Task.sleep(for: delay) } catch { return }
            var epoch = output?.currentEpoch ?? 0
            await perform(steps, epoch: &epoch, session: nil)
        }
    }

    private func setTimer(for date: Date) {
        timer?.cancel()
        logger.info("timer set for \(date)")
        timer = Task {
            do { try await Task.sleep(for: .milliseconds(Int(max(0, date.timeIntervalSinceNow) * 1000))) } catch { return }
            if let cue = parts.cue { output?.enqueue(cue.samples, sampleRate: cue.sampleRate, kind: .sound) }
            var epoch = output?.currentEpoch ?? 0
            await perform([.print("SUSI: Time is up."), .speak("Time is up.", language: "en")], epoch: &epoch, session: nil)
        }
    }

    // MARK: Reporting

    private func setState(_ newState: AssistantState, session id: Int) {
        guard isCurrent(id) else { return }
        setState(newState)
    }

    private func setState(_ newState: AssistantState) {
        guard newState != state else { return }
        state = newState
        logger.info("state: \(newState)")
        emit(.state(newState))
    }

    private func emit(_ event: AssistantEvent) {
        if case .error(let stage, let message) = event { logger.error("\(stage): \(message)") }
        onEvent(event)
    }

    private func runHook(_ detection: Detection) {
        guard let hook = parts.hook else { return }
        do {
            try hook.run(keyword: detection.keyword, score: detection.score)
        } catch {
            emit(.error(stage: .hook, message: "on_wake: \(error)"))
        }
    }

    private static func seconds(_ samples: UInt64) -> Double {
        Double(samples) / Double(Listener.sampleRate)
    }
}
