import CALSA
import Logging

/// Sends alsa-lib's own diagnostics to swift-log (debug level) instead of stderr: the typed
/// errors already carry what a user needs, and a daemon's terminal is not the place for them.
enum ALSAMessages {
    static let logger = Logger(label: "hotword.alsa")

    private static let routed: Void = hotword_alsa_route_messages()

    /// Installs the route once per process; call before any other ALSA function.
    static func route() { routed }
}

/// Called by the C handler in CALSA's shim.h for every alsa-lib message.
@_cdecl("hotword_alsa_message")
func hotwordALSAMessage(_ message: UnsafePointer<CChar>) {
    ALSAMessages.logger.debug("\(String(cString: message))")
}
