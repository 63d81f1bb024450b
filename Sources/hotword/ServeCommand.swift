import ArgumentParser
import Dispatch
import Foundation
import HotwordAssistant
import HotwordModels
import HotwordWyoming
import Logging

/// `hotword serve --wyoming URI`: the wake-word service for Home Assistant and Rhasspy.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve wake-word detection over the Wyoming protocol (Home Assistant, Rhasspy).",
        discussion: """
            Listens on tcp://HOST:PORT or unix:///PATH. Each client gets its own detector over the \
            wake words it asks for (detect names), or all that are served; its audio may have any \
            rate, width and channels. Replies: info (describe), detection (name and timestamp in the \
            client's stream, ms) and not-detected (after audio-stop without detection). \
            Settings come from [wyoming], [wake] and [detector] of hotword.toml (as for run), or only \
            from --config FILE; options given here win. With avahi-publish-service installed it is \
            announced as _wyoming._tcp. Ctrl-C or SIGTERM stops it. Exit status 64 for a wrong \
            command line, 78 when the configuration or a model is wrong, 1 when it cannot listen.
            """)

    @Option(help: ArgumentHelp("Where to listen: tcp://HOST:PORT or unix:///PATH (default: tcp://0.0.0.0:10400, or [wyoming] uri).",
                               valueName: "URI"))
    var wyoming: String?

    @Option(help: ArgumentHelp("Read settings from this file only (instead of the system and user files).", valueName: "FILE"))
    var config: String?

    @OptionGroup var detector: DetectorOptions

    @OptionGroup var phraseCheck: PhraseCheckSwitch

    @Flag(help: "Do not announce the service with Zeroconf.")
    var noZeroconf = false

    @Flag(help: "Log every connection and its events to standard error.")
    var verbose = false

    func validate() throws {
        if let wyoming {
            do { _ = try WyomingEndpoint(parsing: wyoming) } catch { throw ValidationError("--wyoming: \(error)") }
        }
    }

    func run() throws {
        bootstrapLogging(verbose: verbose, quiet: .info)
        let logger = Logger(label: "hotword.serve")
        let signals = RunSignals()
        let settings: WyomingSettings
        let catalog: WakeWordCatalog
        do {
            (settings, catalog) = try serverSettings()
        } catch let error as ValidationError {
            throw error
        } catch {
            throw CommandFailure("\(error)", status: .configuration)
        }
        if let problem = WyomingServerLimits.openFilesProblem(maximumConnections: settings.maximumConnections) {
            throw CommandFailure("[wyoming] \(problem)", status: .configuration)
        }
        // Events of up to 5 MiB come and go with connections: their memory goes back when freed.
        ProcessMemory.returnLargeAllocationsToTheSystem()
        let notifier = try? ServiceNotifier.fromEnvironment()
        let watchdog = Watchdog(notifier: notifier)
        let server: WyomingServer
        do {
            server = try WyomingServer(endpoint: settings.endpoint, limits: settings.limits, logger: logger, heartbeat: { closed in
                watchdog.ping()
                // What closed connections freed, given back rather than kept in the allocator's heaps.
                if closed > 0 { ProcessMemory.releaseFreeMemory() }
            }) {
                WyomingSession(catalog: catalog)
            }
        } catch {
            throw CommandFailure("\(error)")
        }
        signals.onStop { server.stop() }
        let names = catalog.entries.map(\.name).joined(separator: ", ")
        logger.info("listening on \(server.endpoint) for \(names)")
        var announcement: ZeroconfAnnouncement?
        if case .tcp(_, let port) = server.endpoint, settings.zeroconf, !noZeroconf {
            announcement = ZeroconfAnnouncement.start(name: settings.zeroconfName, port: port, logger: logger)
        }
        notifier?.ready(status: "serving \(names) on \(server.endpoint)")
        server.run()
        notifier?.stopping()
        announcement?.stop()
        logger.info("stopped")
    }

    /// `[wyoming]` from the files with the options over it, and the models it serves loaded
    /// with their detector settings (`[wake]`, `[wake.keywords."…"]`, `[detector]`, `--sensitivity`,
    /// `--[no-]check-phrase`).
    private func serverSettings() throws -> (WyomingSettings, WakeWordCatalog) {
        var configuration = try SettingsFiles.load(only: config)
        if let wyoming { configuration.wyoming.endpoint = try WyomingEndpoint(parsing: wyoming) }
        if !detector.givenModels.isEmpty { configuration.wyoming.models = detector.givenModels }
        if let gain = detector.gain { configuration.audio.gain = gain }
        let models = try configuration.wyoming.models.map { name in (name, try DetectorOptions.loadModel(name)) }
        try detector.applySensitivity(to: &configuration, keywords: models.flatMap(\.1.keywords))
        phraseCheck.apply(to: &configuration)
        let entries = models.map { name, model in
            // A path is served under its file name: /models/kitchen.hwks as "kitchen".
            WakeWordEntry(name: URL(fileURLWithPath: name).deletingPathExtension().lastPathComponent, model: model,
                          settings: configuration.keywordSettings(for: model.keywords))
        }
        // The second stages the models ask for, or the configuration (`check_phrase`).
        let checks: [String: PhraseSpotter]
        do {
            checks = try PhraseSpotter.checks(for: models.map(\.1), settings: configuration.keywordSettings(for: models.flatMap(\.1.keywords)),
                                              configuration: configuration.stt.pocketsphinx)
        } catch {
            throw CommandFailure("\(error)", status: .configuration)
        }
        do {
            return (configuration.wyoming, try WakeWordCatalog(entries: entries, gain: configuration.audio.gain,
                                                              programVersion: HotwordVersion.current, checks: checks))
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}

/// Pings a service watchdog at its interval, from the server's accepting thread: a stuck
/// accept loop stops the pings and systemd restarts the service.
private final class Watchdog: @unchecked Sendable {  // @unchecked: `nextPing` is only touched by the accepting thread
    private let notifier: ServiceNotifier?
    private var nextPing = ContinuousClock.now

    init(notifier: ServiceNotifier?) {
        self.notifier = notifier.flatMap { $0.watchdogInterval == nil ? nil : $0 }
    }

    func ping() {
        guard let notifier, let interval = notifier.watchdogInterval, ContinuousClock.now >= nextPing else { return }
        notifier.watchdog()
        nextPing = .now + interval
    }
}
