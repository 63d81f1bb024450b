import Atomics
import Foundation
import Logging

/// Tells systemd how the service is doing, as `sd_notify(3)` does but without libsystemd:
/// newline-separated `KEY=value` datagrams (`READY=1`, `STATUS=…`, `WATCHDOG=1`, …) sent to
/// the AF_UNIX datagram socket `$NOTIFY_SOCKET` names — a path, or `@name` in Linux's abstract
/// namespace. Sending never blocks; a failure is logged (a failing watchdog ping only once) and
/// the program carries on.
public final class ServiceNotifier: Sendable {
    /// The socket as given (`/run/systemd/notify`, `@name`).
    public let socket: String
    /// How often `watchdog()` must be called: half of `$WATCHDOG_USEC`, as systemd recommends;
    /// nil when the service manager does not watch this process.
    public let watchdogInterval: Duration?

    private let descriptor: Int32
    /// A `sockaddr_un` as bytes, exactly as long as the address (abstract names are not NUL-terminated).
    private let address: [UInt8]
    private static let watchdogMessage: [UInt8] = Array("WATCHDOG=1".utf8)
    private let watchdogFailed = ManagedAtomic(false)
    private let logger = Logger(label: "hotword.service")

    /// The notifier the environment asks for; nil when `$NOTIFY_SOCKET` is unset or empty (not
    /// started by systemd with `Type=notify`). The watchdog applies when `$WATCHDOG_USEC` is
    /// set and `$WATCHDOG_PID`, if set, is this process.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment,
                                       processID: Int32 = getpid()) throws(ServiceNotifierError) -> ServiceNotifier? {
        guard let socket = environment["NOTIFY_SOCKET"], !socket.isEmpty else { return nil }
        var interval: Duration?
        if let text = environment["WATCHDOG_USEC"] {
            guard let microseconds = Int64(text), microseconds > 0 else {
                throw .invalidVariable(name: "WATCHDOG_USEC", value: text, expected: "a positive number of microseconds")
            }
            let watchedProcess = environment["WATCHDOG_PID"].flatMap { $0.isEmpty ? nil : $0 }
            if let watchedProcess, Int32(watchedProcess) == nil {
                throw .invalidVariable(name: "WATCHDOG_PID", value: watchedProcess, expected: "a process id")
            }
            if watchedProcess.flatMap({ Int32($0) }).map({ $0 == processID }) ?? true {
                interval = .microseconds(microseconds / 2)
            }
        }
        return try ServiceNotifier(socket: socket, watchdogInterval: interval)
    }

    /// - Parameters:
    ///   - socket: an absolute path, or `@name` for an abstract socket.
    ///   - watchdogInterval: how often the caller intends to call `watchdog()`; nil: never.
    public init(socket: String, watchdogInterval: Duration? = nil) throws(ServiceNotifierError) {
        var path = Array(socket.utf8)
        guard path.first == UInt8(ascii: "/") || path.first == UInt8(ascii: "@") else {
            throw .unusableSocket(socket: socket, reason: "not an absolute path or an @abstract name")
        }
        if path[0] == UInt8(ascii: "@") { path[0] = 0 }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)!
        let pathCapacity = MemoryLayout<sockaddr_un>.size - pathOffset
        // A path needs room for its terminating NUL; an abstract name may fill the field.
        guard path.count + (path[0] == 0 ? 0 : 1) <= pathCapacity else {
            throw .unusableSocket(socket: socket, reason: "longer than the \(pathCapacity - 1) bytes a socket address holds")
        }
        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { $0.copyBytes(from: path) }
        address = withUnsafeBytes(of: storage) { Array($0.prefix(pathOffset + path.count)) }

        descriptor = Foundation.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            throw .unusableSocket(socket: socket, reason: "cannot create a socket: \(String(cString: strerror(errno)))")
        }
        self.socket = socket
        self.watchdogInterval = watchdogInterval
    }

    deinit {
        close(descriptor)
    }

    /// Startup is finished: the service is doing its job.
    public func ready(status: String) {
        send("READY=1\nSTATUS=\(Self.oneLine(status))")
    }

    /// The configuration is being reloaded; `ready(status:)` follows when done (good or not).
    public func reloading(status: String) {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        // MONOTONIC_USEC: newer systemd (Type=notify-reload) wants the time of the request with RELOADING=1.
        let microseconds = Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000
        send("RELOADING=1\nSTATUS=\(Self.oneLine(status))\nMONOTONIC_USEC=\(microseconds)")
    }

    /// The service is shutting down.
    public func stopping() {
        send("STOPPING=1\nSTATUS=stopping")
    }

    /// A one-line description of what the service is doing, shown by `systemctl status`.
    public func status(_ text: String) {
        send("STATUS=\(Self.oneLine(text))")
    }

    /// The watchdog ping (`WATCHDOG=1`). Allocates nothing: safe in the audio loop. Only the first
    /// failure is logged.
    public func watchdog() {
        let result = Self.watchdogMessage.withUnsafeBytes { transmit($0) }
        if let result, !watchdogFailed.exchange(true, ordering: .relaxed) {
            logger.warning("cannot send the watchdog ping to \(socket): \(String(cString: strerror(result))); further failures are not logged")
        }
    }

    /// Sends one datagram and logs a failure.
    private func send(_ message: String) {
        let bytes = Array(message.utf8)
        if let result = bytes.withUnsafeBytes({ transmit($0) }) {
            logger.warning("cannot notify the service manager at \(socket) (\(message.prefix { $0 != "\n" })): \(String(cString: strerror(result)))")
        }
    }

    /// The errno of a failed send, nil when it was sent.
    private func transmit(_ message: UnsafeRawBufferPointer) -> Int32? {
        let sent = address.withUnsafeBytes { address in
            sendto(descriptor, message.baseAddress, message.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT),
                   address.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(address.count))
        }
        return sent < 0 ? errno : nil
    }

    /// A newline would start another `KEY=value` assignment.
    private static func oneLine(_ text: String) -> String {
        text.replacingOccurrences(of: "\n", with: " ")
    }
}

/// The notification socket or the watchdog variables systemd passed cannot be used.
public enum ServiceNotifierError: Error, Sendable, Equatable, CustomStringConvertible {
    case unusableSocket(socket: String, reason: String)
    case invalidVariable(name: String, value: String, expected: String)

    public var description: String {
        switch self {
        case .unusableSocket(let socket, let reason):
            "NOTIFY_SOCKET=\(socket) cannot be used: \(reason)"
        case .invalidVariable(let name, let value, let expected):
            "\(name)=\(value) is invalid: expected \(expected)"
        }
    }
}
