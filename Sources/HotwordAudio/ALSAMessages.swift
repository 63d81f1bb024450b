import CALSA
import Logging

/// Sends alsa-lib's own diagnostics to swift-log (debug level) instead of stderr: the typed
/// errors already carry what a user needs, and a daemon's terminal is not the place for them.
enum ALSAMessages {
    static let logger = Logger(label: "hotword.alsa")

    private static let routed: Void = hotword_alsa_route_messages { message in
        guard let message else { return }
        ALSAMessages.logger.debug("\(String(cString: message))")
    }

    /// Installs the route once per process; call before any other ALSA function.
    static func route() { routed }
}
