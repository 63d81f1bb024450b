import Foundation
import Logging
import Synchronization

/// Collects every log line (message and metadata, at trace level) of the loggers it makes.
public final class LogCapture: Sendable {
    private let collected = Mutex<[String]>([])

    public var lines: [String] { collected.withLock { $0 } }

    public init() {}

    /// A logger writing into this capture.
    public func logger(_ label: String = "hotword.test") -> Logger {
        Logger(label: label) { _ in Handler(capture: self) }
    }

    fileprivate func append(_ line: String) { collected.withLock { $0.append(line) } }

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
