import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Why talking to a Wyoming server failed, with the server's address.
public enum WyomingClientError: Error, Sendable, Equatable, CustomStringConvertible {
    case cannotConnect(endpoint: String, reason: String)  // refused, no route, no answer in time
    case timedOut(endpoint: String, waitingFor: String, after: Duration)  // the whole exchange's time is up
    case closed(endpoint: String, waitingFor: String)  // before the answer (`waitingFor`) came
    case sendFailed(endpoint: String, reason: String)
    case invalidReply(endpoint: String, WyomingProtocolError)  // bytes that are not Wyoming framing
    case serverError(endpoint: String, text: String)  // an `error` event, or an answer that makes no sense here

    public var description: String {
        switch self {
        case .cannotConnect(let endpoint, let reason): "cannot connect to \(endpoint): \(reason)"
        case .timedOut(let endpoint, let waitingFor, let after): "\(endpoint) sent no \(waitingFor) within \(after)"
        case .closed(let endpoint, let waitingFor): "\(endpoint) closed the connection before its \(waitingFor)"
        case .sendFailed(let endpoint, let reason): "cannot send to \(endpoint): \(reason)"
        case .invalidReply(let endpoint, let error): "\(endpoint) answered with something that is not Wyoming: \(error)"
        case .serverError(let endpoint, let text): "\(endpoint) answered: \(text)"
        }
    }
}

/// One blocking connection to a Wyoming server, for a single request and its answer
/// (speech to text, text to speech): every call ends by `deadline`. Use from one thread.
public final class WyomingClientConnection {
    public let endpoint: WyomingEndpoint
    private let socket: Int32
    private let deadline: ContinuousClock.Instant
    private let timeout: Duration
    private var parser = WyomingEventParser()
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// Connects; the whole exchange on this connection must be over within `timeout`.
    public init(to endpoint: WyomingEndpoint, timeout: Duration) throws(WyomingClientError) {
        self.endpoint = endpoint
        self.timeout = timeout
        deadline = .now + timeout
        func failure(_ reason: String) -> WyomingClientError { .cannotConnect(endpoint: endpoint.description, reason: reason) }
        var address: POSIXSocket.Address
        switch POSIXSocket.address(of: endpoint, passive: false) {
        case .success(let found): address = found
        case .failure(let problem): throw failure(problem.reason)
        }
        let socket = POSIXSocket.stream(address.family)
        guard socket >= 0 else { throw failure(POSIXSocket.reason()) }
        // Non-blocking while connecting, so an unanswering host costs the timeout, not minutes.
        let flags = fcntl(socket, F_GETFL)
        _ = fcntl(socket, F_SETFL, flags | O_NONBLOCK)
        var problem: String?
        if POSIXSocket.with(&address, { connect(socket, $0, $1) }) != 0 {
            if errno != EINPROGRESS {
                problem = POSIXSocket.reason()
            } else if !POSIXSocket.wait(socket, for: POLLOUT, milliseconds: POSIXSocket.milliseconds(until: deadline)) {
                problem = "no answer within \(timeout)"
            } else {
                var code: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(socket, SOL_SOCKET, SO_ERROR, &code, &length)
                if code != 0 { problem = POSIXSocket.reason(code) }
            }
        }
        if let problem {
            close(socket)
            throw failure(problem)
        }
        _ = fcntl(socket, F_SETFL, flags)
        self.socket = socket
    }

    deinit { close(socket) }

    public func send(_ event: WyomingEvent) throws(WyomingClientError) {
        // A server that stops reading must not hold us past the deadline.
        if let code = POSIXSocket.sendAll(socket, event.encoded(), by: deadline) {
            throw .sendFailed(endpoint: endpoint.description, reason: POSIXSocket.reason(code))
        }
    }

    /// The next event from the server; `waitingFor` names what is expected, for errors.
    public func receive(waitingFor: String) throws(WyomingClientError) -> WyomingEvent {
        while true {
            do {
                if let event = try parser.next() { return event }
            } catch {
                throw .invalidReply(endpoint: endpoint.description, error)
            }
            let left = POSIXSocket.milliseconds(until: deadline)
            guard left > 0, POSIXSocket.wait(socket, for: POLLIN, milliseconds: left) else {
                throw .timedOut(endpoint: endpoint.description, waitingFor: waitingFor, after: timeout)
            }
            let count = POSIXSocket.read(socket, into: &buffer)
            if count == -Int(EINTR) { continue }
            guard count > 0 else { throw .closed(endpoint: endpoint.description, waitingFor: waitingFor) }
            parser.append(buffer[0..<count])
        }
    }
}
