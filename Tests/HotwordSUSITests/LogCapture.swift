import Foundation
import Logging

/// Collects every log line (message and metadata, at trace level) of the loggers it makes.
final class LogCapture: @unchecked Sendable {  // @unchecked: `lines` is guarded by `lock`
    private let lock = NSLock()
    private var collected: [String] = []

    var lines: [String] { lock.withLock { collected } }

    /// A logger writing into this capture.
    func logger(_ label: String = "hotword.test") -> Logger {
        Logger(label: label) { _ in Handler(capture: self) }
    }

    fileprivate func append(_ line: String) { lock.withLock { collected.append(line) } }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var metadataProvider: Logger.MetadataProvider?
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            capture.append("\(event.level) \(event.message) \(all)")
        }
    }
}
