import Dispatch
import Foundation

/// The signals `hotword run` answers: SIGINT and SIGTERM stop it, SIGHUP reloads the
/// configuration. Caught from the moment this is made, so that none of them ends the process
/// the default way while it starts up: a stop that comes early is remembered.
final class RunSignals: @unchecked Sendable {  // @unchecked: `stopRequested` and `stopHandler` are guarded by `lock`, `sources` is set once in init (signal sources are not Sendable, and a Mutex cannot take them in yet: swiftlang/swift#77199)
    /// One element per SIGHUP; several while a reload runs count as one more.
    let reloads: AsyncStream<Void>
    private let lock = NSLock()
    private var stopRequested = false
    private var stopHandler: (@Sendable () -> Void)?
    private var sources: [any DispatchSourceSignal] = []

    init() {
        let (reloads, reloadRequested) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.reloads = reloads
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in
                if number == SIGHUP {
                    reloadRequested.yield()
                } else {
                    self?.requestStop()
                }
            }
            source.resume()
            sources.append(source)
        }
    }

    deinit {
        sources.forEach { $0.cancel() }
    }

    /// Whether SIGINT or SIGTERM has come.
    var isStopRequested: Bool {
        lock.withLock { stopRequested }
    }

    /// Runs `handler` at the first SIGINT or SIGTERM, or now if one has come already.
    func onStop(_ handler: @escaping @Sendable () -> Void) {
        let alreadyStopped = lock.withLock {
            stopHandler = handler
            return stopRequested
        }
        if alreadyStopped { handler() }
    }

    private func requestStop() {
        let handler = lock.withLock { () -> (@Sendable () -> Void)? in
            stopRequested = true
            return stopHandler
        }
        handler?()
    }
}
