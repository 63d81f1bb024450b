import Foundation
import Logging

/// Announces a TCP Wyoming service as `_wyoming._tcp` on the local network, so Home Assistant
/// discovers it, through Avahi's `avahi-publish-service` as a child process: no D-Bus or Avahi
/// library to link, and a machine without Avahi simply has no announcement.
public final class ZeroconfAnnouncement: Sendable {
    public static let serviceType = "_wyoming._tcp"
    public static let program = "avahi-publish-service"
    private let process: Process

    private init(process: Process) {
        self.process = process
    }

    /// Starts announcing `name` on `port`; nil (and a log line) when Avahi's tool is not
    /// installed or does not start. The service keeps running either way.
    public static func start(name: String, port: Int, logger: Logger,
                             environment: [String: String] = ProcessInfo.processInfo.environment) -> ZeroconfAnnouncement? {
        let folders = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        guard let executable = folders.map({ "\($0)/\(program)" }).first(where: FileManager.default.isExecutableFile) else {
            logger.info("no Zeroconf announcement: \(program) is not installed (Debian: avahi-utils); add the service in Home Assistant by host and port")
            return nil
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [name, serviceType, String(port)]
        process.standardOutput = FileHandle.nullDevice
        process.terminationHandler = { ended in
            if ended.terminationReason == .exit, ended.terminationStatus != 0 {
                logger.warning("\(program) ended with status \(ended.terminationStatus): the service is no longer announced (is avahi-daemon running?)")
            }
        }
        do {
            try process.run()
        } catch {
            logger.warning("no Zeroconf announcement: cannot start \(executable): \(error.localizedDescription)")
            return nil
        }
        logger.info("announcing '\(name)' as \(serviceType) on port \(port) with \(program)")
        return ZeroconfAnnouncement(process: process)
    }

    /// Withdraws the announcement.
    public func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
