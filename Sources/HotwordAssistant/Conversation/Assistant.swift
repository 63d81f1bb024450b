import Foundation
import HotwordAudio
import HotwordCore
import HotwordHistory
import HotwordModels
import HotwordSUSI
import Logging
import Synchronization

/// The voice assistant: listens for the wake word, records the question, transcribes it, asks
/// SUSI, shows and speaks the answer, and listens again.
///
/// Threads: capture and listening run on two threads of their own (`Listener`), playing on a
/// third (`AudioOutput`); transcribing, asking and synthesising are async work on the engines'
/// own queues and threads. The conversation (`Conversation`, an actor) takes the listener's
/// events in order and runs one question at a time; a wake word while it is busy cancels that
/// question and silences the answer (barge-in). After an answer of SUSI's, the listener opens a
/// follow-up window in which speech without the wake word is transcribed, and acted on only when
/// it is a rating phrase.
///
/// Under systemd (`notifier`) it reports READY once listening and STOPPING when stopped, and
/// the listener thread sends the watchdog pings.
public final class Assistant: Sendable {
    private let listener: Listener
    private let ring: SampleRing
    private let ownOutput: OwnOutputLog
    private let output: AudioOutput?
    private let conversation: Conversation
    private let heard: AsyncStream<HearingEvent>
    private let heardContinuation: AsyncStream<HearingEvent>.Continuation
    private let stopped = Atomic(false)
    private let notifier: ServiceNotifier?
    private let logger = Logger(label: "hotword.assistant")

    /// Opens the audio devices and loads the models and the speech engines (pocketsphinx takes
    /// about a second, on its own queue). A microphone ALSA knows but that is absent does not
    /// fail: it is waited for (see `CaptureDevice.init(_:waitIfAbsent:)`).
    /// - Parameters:
    ///   - notifier: the service manager to tell about readiness, and to send watchdog pings to.
    ///   - onEvent: called for every event, one at a time, in order.
    public convenience init(configuration: AssistantConfiguration, notifier: ServiceNotifier? = nil,
                            onEvent: @escaping @Sendable (AssistantEvent) -> Void) async throws(AssistantError) {
        // The microphone first: a name ALSA does not know makes everything else moot, and its
        // error comes alone. A known microphone that is absent (not plugged in yet, its sound
        // server still starting) is waited for: listening begins when it appears.
        let capture: CaptureDevice
        do throws(AudioDeviceError) {
            capture = try CaptureDevice(configuration.audio.capture, waitIfAbsent: true)
        } catch {
            throw .capture(error)
        }
        try await self.init(configuration: configuration, microphone: capture, notifier: notifier, onEvent: onEvent)
    }

    /// An assistant that hears `microphone` (which it closes when stopped) instead of the
    /// configured capture device; the loudspeaker is still the configured one.
    public init(configuration: AssistantConfiguration, microphone: any AudioSource, notifier: ServiceNotifier? = nil,
                onEvent: @escaping @Sendable (AssistantEvent) -> Void) async throws(AssistantError) {
        self.notifier = notifier
        ProcessMemory.returnLargeAllocationsToTheSystem()  // it runs for months: see ProcessMemory
        let ring = SampleRing(minimumCapacity: 30 * AudioFormat.sampleRate)
        let ownOutput = OwnOutputLog(capturePosition: { ring.totalWritten })
        let listening = try ListenerSettings(models: try ListenerSettings.models(of: configuration), configuration: configuration,
                                             ring: ring, ownOutput: ownOutput)
        let parts = try await ConversationParts(configuration: configuration, keywords: listening.hearing.keywords)
        if parts.synthesizer != nil || parts.cue != nil {
            let playback: PlaybackDevice
            do throws(AudioDeviceError) { playback = try PlaybackDevice(configuration.audio.playback) } catch { throw .playback(error) }
            output = AudioOutput(device: playback, ownOutput: ownOutput)
        } else {
            output = nil
        }
        self.ring = ring
        self.ownOutput = ownOutput

        (heard, heardContinuation) = AsyncStream<HearingEvent>.makeStream()
        let continuation = heardContinuation
        let period = Int(configuration.audio.capture.period.frames(atRate: AudioFormat.sampleRate))
        listener = Listener(source: microphone, periodFrames: period, ring: ring, settings: listening,
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
        let models = try ListenerSettings.models(of: configuration)
        let parts = try await ConversationParts(configuration: configuration, keywords: models.flatMap(\.keywords),
                                                reusing: (await conversation.parts, previous))
        // Built where the listener thread takes it from: the compiler sees it reach no other thread.
        try listener.replace { [ring, ownOutput] () throws(AssistantError) -> sending ListenerSettings in
            try ListenerSettings(models: models, configuration: configuration, ring: ring, ownOutput: ownOutput)
        }
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
            ("history.enabled", old.history.enabled == new.history.enabled),
            ("history.file", old.history.file == new.history.file),
            ("history.keep_days", old.history.limits.keepDays == new.history.limits.keepDays),
            ("history.max_rows", old.history.limits.maxRows == new.history.limits.maxRows),
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

    /// The history database; nil when it is off or could not be opened (a history problem
    /// is reported, and must not stop the assistant listening).
    private var history: HistoryRecorder?

    private var state = AssistantState.listening
    /// The question being answered.
    private var session: (id: Int, task: Task<Void, Never>)?
    private var sessionsStarted = 0
    /// The last wake word, for the question after it.
    private var lastWake: (keyword: String, score: Float)?
    /// SUSI's last answer and when it ended, for a rating by voice.
    private var lastAnswer: (answer: AnsweredQuestion, ended: ContinuousClock.Instant)?
    /// Planned answers (by plan id) and the timer, which outlive the question that set them.
    private var background: [String: Task<Void, Never>] = [:]
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

    /// Opens the history, starts listening, and takes up the answers planned before a restart
    /// (see `PlanTiming`).
    func begin() async {
        if configuration.history.enabled {
            do {
                let store = try HistoryStore(file: configuration.history.file, limits: configuration.history.limits)
                history = HistoryRecorder(store: store) { error in Task { await self.historyFailed(error) } }
            } catch {
                historyFailed(error)
            }
        }
        logger.info("state: listening")
        onEvent(.state(.listening))
        guard let history else { return }
        let now = Date()
        for plan in await history.plans() {
            switch PlanTiming(of: plan, now: now, lateLimitMinutes: configuration.history.lateLimitMinutes) {
            case .due(let delay): arm(plan, after: delay, late: false)
            case .late: arm(plan, after: .zero, late: true)
            case .dropped(let minutes):
                logger.notice("dropped a planned answer due \(minutes) min ago, while hotword was not running: \"\(plan.text)\"")
                await history.removePlan(id: plan.id)
            }
        }
    }

    func handle(_ event: HearingEvent) {
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
            lastWake = (detection.keyword, detection.score)
            logger.info("wake word '\(detection.keyword)' (score \(detection.score)) at \(Self.seconds(position)) s")
            emit(.wake(keyword: detection.keyword, score: detection.score, time: Self.seconds(position)))
            runHook(detection)
            if let cue = parts.cue { output?.enqueue(cue.samples, sampleRate: cue.sampleRate, kind: .sound) }
            setState(.recording)
        case .speechStarted(let position):
            emit(.utteranceStart(time: Self.seconds(position)))
        case .utterance(let utterance, _):
            emit(.utteranceEnd(duration: utterance.duration, reason: utterance.end))
            startSession(utterance)
        case .followUp(let utterance):
            guard session == nil, lastAnswer != nil else {
                logger.debug("speech after the answer, without the wake word: dropped (busy, or nothing to rate)")
                return
            }
            logger.debug("\(String(format: "%.1f", utterance.duration)) s of speech after the answer, without the wake word: a rating?")
            startSession(utterance, followUp: true)
        case .noSpeech:
            logger.info("no question after the wake word")
            emit(.noSpeech)
            setState(.listening)
        case .audioLost(let samples):
            emit(.error(stage: .audio, message: "\(Self.seconds(samples)) s of audio lost: the machine is too busy"))
        case .wakeChecking:
            // Perhaps the user is talking over what plays: silence it while the check decides,
            // so the question is heard as speech and not as the assistant's own sound.
            output?.mute()
        case .wakeRejected, .checkAbandoned:
            output?.unmute()
        case .ownWakeWord, .ownSoundHeard, .followUpClosed, .checkFailed, .audioFlowingAgain:
            break  // the listener's log has them
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

    /// Answers `utterance`: a question after a wake word, or with `followUp` speech heard without
    /// one right after an answer, which only a rating phrase makes more than noise.
    private func startSession(_ utterance: Utterance, followUp: Bool = false) {
        sessionsStarted += 1
        let id = sessionsStarted
        if !parts.bargeIn { listener.setWakeEnabled(false) }
        setState(.transcribing)
        let epoch = output?.currentEpoch ?? 0
        let wake = followUp ? nil : lastWake
        let task = Task { await self.converse(utterance, wake: wake, followUp: followUp, session: id, epoch: epoch) }
        session = (id, task)
    }

    private func converse(_ utterance: Utterance, wake: (keyword: String, score: Float)?, followUp: Bool, session id: Int,
                          epoch: Int) async {
        defer { endSession(id) }
        let asked = Date()
        var clock = ContinuousClock.now
        let transcription: Transcription
        do {
            transcription = try await parts.transcriber.transcribe(utterance.samples)
        } catch {
            // A wake word (or stop) meanwhile cancelled the question, and the recogniser failed
            // because of that: nothing went wrong, and the new question must not get an apology.
            guard isCurrent(id) else { return }
            if followUp {  // nobody asked anything: no apology
                logger.notice("speech after the answer could not be transcribed: \(error.description)")
                return
            }
            emit(.error(stage: .transcribe, message: error.description))
            await reply("Sorry, I could not make out what you said.", epoch: epoch)
            return
        }
        guard isCurrent(id) else { return }
        let text = transcription.text
        let transcribing = Self.milliseconds(since: &clock)
        switch transcription.availability {
        case .lost(let error):
            emit(.speechToTextLost(engine: parts.transcriber.engine, fallback: transcription.engine, message: error.description))
            if !followUp {  // speech heard without the wake word is no reason to talk
                _ = await say("My speech recognition server cannot be reached. I am using the built-in one until it is back.", epoch: epoch)
                clock = ContinuousClock.now  // saying so is neither transcribing nor asking
            }
        case .restored:
            emit(.speechToTextRestored(engine: transcription.engine))
        case nil:
            break
        }
        let intent: VoiceIntent
        if followUp {
            guard let rating = parts.phrases.rating(of: text) else {
                logger.debug("heard after the answer, without the wake word, and not a rating: dropped \"\(text)\"")
                return
            }
            intent = .rate(rating)
        } else {
            intent = parts.phrases.intent(of: text, sinceLastAnswer: lastAnswer.map { (ContinuousClock.now - $0.ended) / .seconds(1) })
        }
        var exchange = Exchange(time: asked, source: .voice, wakeWord: wake?.keyword, wakeScore: wake.map { Double($0.score) },
                                question: text, answer: "", origin: .local,
                                timings: Exchange.Timings(recording: Int(utterance.duration * 1000),
                                                          transcribing: transcribing))
        logger.info("transcribed \(String(format: "%.1f", utterance.duration)) s in \(exchange.timings.transcribing ?? 0) ms")
        emit(.transcript(text, engine: transcription.engine, seconds: Double(transcribing) / 1000))
        guard !text.isEmpty else {
            await reply("Sorry, I didn't catch that.", epoch: epoch)
            return
        }
        let steps: [SUSIStep]
        var answered: AnsweredQuestion?
        var rated: (AnsweredQuestion, SUSIRating)?
        switch intent {
        case .help:
            var randomness = SystemRandomNumberGenerator()
            steps = await parts.local.help(using: &randomness)
        case .rate(let rating):
            guard let last = lastAnswer?.answer else { return }
            lastAnswer = nil  // one rating per answer
            let outcome = await parts.local.rate(last, rating)
            steps = outcome.steps
            if outcome.rated { rated = (last, rating) }
        case .ask:
            setState(.asking, session: id)
            let reply: SUSIReply
            do {
                reply = try await parts.susi.ask(text)
            } catch .cancelled {
                return
            } catch {
                guard isCurrent(id) else { return }
                emit(.error(stage: .ask, message: error.description))
                exchange.origin = .error
                exchange.error = error.description
                exchange.answer = "SUSI: \(error.spokenMessage)"
                exchange.timings.asking = Self.milliseconds(since: &clock)
                await self.reply(error.spokenMessage, epoch: epoch)
                await record(exchange)
                return
            }
            guard isCurrent(id) else { return }
            exchange.origin = .susi
            exchange.actions = reply.actionsJSON
            exchange.skill = reply.skills.first
            exchange.timings.asking = Self.milliseconds(since: &clock)
            steps = parts.renderer.steps(for: reply)
            answered = AnsweredQuestion(question: text, reply: reply.answerText, skill: reply.skills.first)
        }
        guard isCurrent(id) else { return }
        setState(.speaking, session: id)
        var currentEpoch = epoch
        await perform(steps, epoch: &currentEpoch, session: id)
        exchange.timings.speaking = Self.milliseconds(since: &clock)
        exchange.answer = Self.printed(steps)
        let recorded = await record(exchange)
        if var answered {
            answered.exchangeID = recorded?.id
            lastAnswer = (answered, ContinuousClock.now)
            // The answer has ended: a rating may follow without the wake word. Not after one a
            // wake word cut short, whose question the listener may be hearing already.
            if isCurrent(id) { listener.openFollowUp() }
        }
        if let (answer, rating) = rated, let exchangeID = answer.exchangeID {
            await history?.rate(exchange: exchangeID, Exchange.Rating(rating))
        }
    }

    private func historyFailed(_ error: HistoryError) {
        emit(.error(stage: .history, message: error.description))
    }

    @discardableResult
    private func record(_ exchange: Exchange) async -> Exchange? {
        await history?.record(exchange)
    }

    /// What `steps` show, one line per printed step (planned ones included).
    private static func printed(_ steps: [SUSIStep]) -> String {
        steps.flatMap { step -> [String] in
            switch step {
            case .print(let text): [text]
            case .planned(let delay, let planned): printed(planned).split(separator: "\n").map { "[in \(SUSIStep.format(delay))] \($0)" }
            default: []
            }
        }.joined(separator: "\n")
    }

    /// Milliseconds from `clock` to now; `clock` moves to now.
    private static func milliseconds(since clock: inout ContinuousClock.Instant) -> Int {
        let now = ContinuousClock.now
        defer { clock = now }
        return Int((now - clock) / .milliseconds(1))
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
                await schedule(planned, after: delay)
            case .setVolume(let percent):
                logger.info("volume set to \(percent) %")
                output?.volume = Float(percent) / 100
            case .stopSpeaking:
                output?.interrupt()
                epoch = output?.currentEpoch ?? epoch
            case .setTimer(let date):
                await setTimer(for: date)
            case .resetTimer:
                logger.info("timer cleared")
                timer?.cancel()
                timer = nil
                await history?.removeTimer()
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
        let kind: OwnSound = parts.wakeWords.occur(in: text) ? .wakeWordSpeech : .sound
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

    /// A planned answer: kept in the history database until said, so a restart does not lose it.
    private func schedule(_ steps: [SUSIStep], after delay: Duration) async {
        let spoken = steps.compactMap { if case .speak(let text, let language) = $0 { (text, language) } else { nil } }.first
        let shown = steps.compactMap { if case .print(let text) = $0 { text } else { nil } }.first
        guard let text = spoken?.0 ?? shown.map(SUSIRenderer.withoutSpeaker) else { return }
        let plan = PlannedAnswer(kind: .answer, due: Date().addingTimeInterval(delay / .seconds(1)), text: text, language: spoken?.1)
        logger.info("answer planned in \(SUSIStep.format(delay))")
        await history?.plan(plan)
        arm(plan, after: delay, late: false)
    }

    private func setTimer(for date: Date) async {
        logger.info("timer set for \(date)")
        let plan = PlannedAnswer(kind: .timer, due: date, text: "Time is up.", language: "en")
        await history?.plan(plan)
        arm(plan, after: .milliseconds(Int(max(0, date.timeIntervalSinceNow) * 1000)), late: false)
    }

    /// Says `plan` after `delay` (the timer with the cue first); `late` says when it was due, for
    /// one that fell due while hotword was not running. It is forgotten as it begins, so one cut
    /// short by a stop is not said again at the next start.
    private func arm(_ plan: PlannedAnswer, after delay: Duration, late: Bool) {
        let task = Task {
            do { try await Task.sleep(for: delay) } catch { return }
            await history?.removePlan(id: plan.id)
            if plan.kind == .timer, let cue = parts.cue { output?.enqueue(cue.samples, sampleRate: cue.sampleRate, kind: .sound) }
            let text = late ? "This was due at \(plan.due.formatted(date: .omitted, time: .shortened)): \(plan.text)" : plan.text
            var epoch = output?.currentEpoch ?? 0
            await perform([.print("SUSI: \(text)"), .speak(text, language: plan.language)], epoch: &epoch, session: nil)
            if plan.kind == .answer { background[plan.id] = nil }
        }
        if plan.kind == .timer {
            timer?.cancel()
            timer = task
        } else {
            background[plan.id] = task
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
        Double(samples) / Double(AudioFormat.sampleRate)
    }
}
