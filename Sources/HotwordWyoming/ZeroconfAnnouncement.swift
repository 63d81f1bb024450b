import Foundation
import HotwordChildProcess
import Logging

/// Announces a TCP Wyoming service as `_wyoming._tcp` on the local network, so Home Assistant
/// discovers it, through Avahi's `avahi-publish-service` as a child process: no D-Bus or Avahi
/// library to link, and a machine without Avahi simply has no announcement.
public final class ZeroconfAnnouncement: Sendable {
    public static let serviceType = "_wyoming._tcp"
    public static let program = "avahi-publish-service"
    private let child: ChildProcess
    /// Signalled once the child has exited (and been reaped).
    private let ended = DispatchSemaphore(value: 0)

    private init(child: ChildProcess, logger: Logger) {
        self.child = child
        let ended = ended
        Thread {
            if case .exited(let code) = child.wait(), code != 0 {
                logger.warning("\(Self.program) ended with status \(code): the service is no longer announced (is avahi-daemon running?)")
            }
            ended.signal()
        }.start()
    }

    /// Starts announcing `name` on `port`; nil (and a log line) when Avahi's tool is not
    /// installed or does not start. The service keeps running either way.
    public static func start(name: String, port: Int, logger: Logger,
                             environment: [String: String] = ProcessInfo.processInfo.environment) -> ZeroconfAnnouncement? {
        guard let executable = ChildProcess.locate(program, searchPath: environment["PATH"] ?? "/usr/bin:/bin") else {
            logger.info("no Zeroconf announcement: \(program) is not installed (Debian: avahi-utils); add the service in Home Assistant by host and port")
            return nil
        }
        let child: ChildProcess
        do {
            child = try ChildProcess(executable: executable, arguments: [program, name, serviceType, String(port)],
                                     standardError: nil)
        } catch {
            logger.warning("no Zeroconf announcement: cannot start \(executable): \(error)")
            return nil
        }
        logger.info("announcing '\(name)' as \(serviceType) on port \(port) with \(program)")
        return ZeroconfAnnouncement(child: child, logger: logger)
    }

    /// Withdraws the announcement and waits for the announcer to end.
    public func stop() {
        child.signal(SIGTERM)
        ended.wait()
        ended.signal()  // later calls pass too
    }
}
