import Foundation
import Synchronization

/// The service manager's side of `sd_notify`: an AF_UNIX datagram socket, bound to a path or to
/// an abstract name, that keeps every message it receives with the time it came.
public final class NotifySocket: Sendable {
    public struct Message: Sendable {
        public let text: String
        public let time: ContinuousClock.Instant

        /// The `KEY=value` assignments of the message.
        public var fields: [String: String] {
            Dictionary(text.split(separator: "\n").map { line in
                let parts = line.split(separator: "=", maxSplits: 1)
                return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
            }) { $1 }
        }
    }

    /// What `NOTIFY_SOCKET` is set to: the path, or `@name`.
    public let address: String
    private let descriptor: Int32
    private let received = Mutex<[Message]>([])
    private let closing = Atomic(false)
    private let finished = DispatchSemaphore(value: 0)

    /// Binds `path`, or the abstract name `path` (without the `@`) when `abstract` is true.
    /// With `receiving` false nothing is ever read: its queue fills up, as a hung manager's would.
    public init(path: String, abstract: Bool = false, receiving: Bool = true) throws {
        address = abstract ? "@" + path : path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw NotifySocketError(call: "socket", path: path) }
        var name = Array(path.utf8)
        if abstract { name.insert(0, at: 0) }
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: name) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + name.count + (abstract ? 0 : 1))
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else {
            let error = NotifySocketError(call: "bind", path: path)
            Foundation.close(descriptor)
            throw error
        }
        // Wake up now and then to notice `close()`.
        var timeout = timeval(tv_sec: 0, tv_usec: 50_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard receiving else {
            finished.signal()
            return
        }
        let thread = Thread { [self] in receive() }
        thread.name = "notify-socket"
        thread.start()
    }

    /// Everything received so far, in order.
    public var messages: [Message] { received.withLock { $0 } }

    /// Waits until the messages satisfy `condition` (true) or `timeout` passes (false).
    public func wait(timeout: Duration = .seconds(30), _ condition: ([Message]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition(messages) {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    /// Stops receiving and removes the socket.
    public func close() {
        guard !closing.exchange(true, ordering: .acquiringAndReleasing) else { return }
        finished.wait()
        Foundation.close(descriptor)
        if !address.hasPrefix("@") { unlink(address) }
    }

    private func receive() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !closing.load(ordering: .acquiring) {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { continue }
            let message = Message(text: String(decoding: buffer[..<count], as: UTF8.self), time: .now)
            received.withLock { $0.append(message) }
        }
        finished.signal()
    }
}

public struct NotifySocketError: Error, CustomStringConvertible {
    public let call: String
    public let path: String
    public let reason: String

    init(call: String, path: String) {
        self.call = call
        self.path = path
        reason = String(cString: strerror(errno))
    }

    public var description: String { "\(call) failed for the notification socket \(path): \(reason)" }
}
