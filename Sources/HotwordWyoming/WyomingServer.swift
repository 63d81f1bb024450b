import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

// Plain POSIX sockets and one thread per connection, not swift-nio: each connection's work is
// CPU-bound detection that would block an event loop anyway, a blocking read loop per thread is
// the simplest code that keeps connections independent, and it adds no dependency to build on
// a Raspberry Pi. C types stay inside this file.

/// How long connections may stay silent, how many may be open, how large events may be.
public struct WyomingServerLimits: Sendable, Equatable {
    /// A connection that sends nothing for this long is closed.
    public var idleTimeout: Duration = .seconds(60)
    public var maximumConnections = 100
    public var event = WyomingEventParser.Limits()
    /// A client that does not read its replies for this long is dropped, so it cannot hold a thread.
    public var sendTimeout: Duration = .seconds(10)

    public init(idleTimeout: Duration = .seconds(60), maximumConnections: Int = 100) {
        self.idleTimeout = idleTimeout
        self.maximumConnections = maximumConnections
    }
}

public enum WyomingServerError: Error, Sendable, Equatable, CustomStringConvertible {
    case cannotListen(endpoint: String, operation: String, reason: String)

    public var description: String {
        switch self {
        case .cannotListen(let endpoint, let operation, let reason): "cannot listen on \(endpoint): \(operation) failed: \(reason)"
        }
    }
}

/// Accepts Wyoming connections and runs a `WyomingSession` for each on a thread of its own.
/// A bad connection (malformed framing, idle, unreadable audio) is logged and closed; the others
/// are not affected.
public final class WyomingServer: @unchecked Sendable {  // @unchecked: `stopped`, `open`, `nextID`, `listenerClosed` are guarded by `lock`; the rest is set once in init
    /// Where it listens, with the port the system chose when 0 was asked for.
    public let endpoint: WyomingEndpoint
    private let listener: Int32
    private let limits: WyomingServerLimits
    private let logger: Logger
    private let makeSession: @Sendable () -> WyomingSession
    private let lock = NSLock()
    private var stopped = false
    private var open = 0
    private var nextID = 0
    private var listenerClosed = false
    private static let pollMilliseconds: Int32 = 200

    /// Binds and listens at once, so an address in use is an error here and not later.
    public init(endpoint: WyomingEndpoint, limits: WyomingServerLimits = WyomingServerLimits(), logger: Logger,
                makeSession: @escaping @Sendable () -> WyomingSession) throws(WyomingServerError) {
        let (listener, bound) = try Self.listen(on: endpoint)
        self.listener = listener
        self.endpoint = bound
        self.limits = limits
        self.logger = logger
        self.makeSession = makeSession
    }

    deinit {
        closeListener()
    }

    /// Stops listening: the socket closed, a Unix socket's file removed. Once only.
    private func closeListener() {
        guard lock.withLock({ () -> Bool in
            defer { listenerClosed = true }
            return !listenerClosed
        }) else { return }
        close(listener)
        if case .unix(let path) = endpoint { unlink(path) }
    }

    /// Connections open now.
    public var connectionCount: Int { lock.withLock { open } }

    /// Accepts connections until `stop()`, then stops listening (open connections close
    /// within a fraction of a second).
    public func run() {
        defer { closeListener() }
        while !lock.withLock({ stopped }) {
            guard POSIXSocket.wait(listener, for: POLLIN, milliseconds: Self.pollMilliseconds) else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno != EINTR, errno != EAGAIN, errno != ECONNABORTED {
                    logger.error("accept failed: \(POSIXSocket.reason())")
                }
                continue
            }
            let (id, accepted) = lock.withLock { () -> (Int, Bool) in
                nextID += 1
                guard open < limits.maximumConnections else { return (nextID, false) }
                open += 1
                return (nextID, true)
            }
            // Not inherited by the Zeroconf child (accept4 with SOCK_CLOEXEC is not in Glibc's Swift overlay).
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            let peer = Self.peerName(connection)
            guard accepted else {
                logger.warning("connection \(id) from \(peer) refused: \(limits.maximumConnections) connections are open already")
                close(connection)
                continue
            }
            let thread = Thread { [self] in
                serve(connection, name: "connection \(id) from \(peer)")
                close(connection)
                lock.withLock { open -= 1 }
            }
            thread.name = "wyoming \(id)"
            // 1 MiB, not glibc's 8 MiB: hundreds of connections fit a 32-bit Pi's address space.
            // Enough for the deepest JSON the decoder accepts (it stops at 512 levels).
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Makes `run()` return and every connection close within a fraction of a second.
    public func stop() {
        lock.withLock { stopped = true }
    }

    // MARK: One connection

    private func serve(_ socket: Int32, name: String) {
        var timeout = timeval(tv_sec: Int(limits.sendTimeout.components.seconds), tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var on: Int32 = 1
        // Detections go out at once, not after Nagle's delay.
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        logger.debug("\(name): connected")
        var parser = WyomingEventParser(limits: limits.event)
        let session = makeSession()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var lastHeard = ContinuousClock.now
        do {
            while true {
                guard !lock.withLock({ stopped }) else { return logger.debug("\(name): closed, the server is stopping") }
                guard POSIXSocket.wait(socket, for: POLLIN, milliseconds: Self.pollMilliseconds) else {
                    if ContinuousClock.now - lastHeard > limits.idleTimeout {
                        return logger.info("\(name): closed after \(limits.idleTimeout) without data")
                    }
                    continue
                }
                let count = POSIXSocket.read(socket, into: &buffer)
                if count < 0 {
                    if -count == Int(EINTR) || -count == Int(EAGAIN) { continue }
                    return logger.info("\(name): closed: \(POSIXSocket.reason(Int32(-count)))")
                }
                if count == 0 {
                    try parser.finish()
                    return logger.debug("\(name): closed by the client")
                }
                lastHeard = .now
                parser.append(buffer[0..<count])
                while let event = try parser.next() {
                    let replies = try session.handle(event)
                    for reply in replies {
                        if reply.type == "detection" { logger.info("\(name): \(reply.data["name"]?.string ?? "?") at \(reply.data["timestamp"]?.integer ?? 0) ms") }
                        guard send(reply, to: socket) else { return logger.info("\(name): closed: the client stopped reading") }
                    }
                }
            }
        } catch {
            logger.warning("\(name): closed: \(error)")
            // Best effort: tell the client why before closing.
            _ = send(WyomingEvent(type: "error", data: ["text": .string("\(error)"), "code": "protocol-error"]), to: socket)
        }
    }

    /// Writes the whole event; false when the client is gone or does not read.
    private func send(_ event: WyomingEvent, to socket: Int32) -> Bool {
        POSIXSocket.sendAll(socket, event.encoded()) == nil
    }

    // MARK: Sockets

    private static func listen(on endpoint: WyomingEndpoint) throws(WyomingServerError) -> (Int32, WyomingEndpoint) {
        func failure(_ operation: String, _ reason: String = POSIXSocket.reason()) -> WyomingServerError {
            .cannotListen(endpoint: endpoint.description, operation: operation, reason: reason)
        }
        var address: POSIXSocket.Address
        switch POSIXSocket.address(of: endpoint, passive: true) {
        case .success(let found): address = found
        case .failure(let problem): throw failure("resolving the address", problem.reason)
        }
        if case .unix(let path) = endpoint {
            // A socket file left by a previous run would make bind fail.
            var status = stat()
            if lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK { unlink(path) }
        }
        let socket = POSIXSocket.stream(address.family)
        guard socket >= 0 else { throw failure("socket") }
        var on: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        for (operation, call) in [("bind", { POSIXSocket.with(&address, { bind(socket, $0, $1) }) }), ("listen", { Glibc.listen(socket, 128) })] {
            guard call() == 0 else {
                let reason = POSIXSocket.reason()
                close(socket)
                throw failure(operation, reason)
            }
        }
        guard case .tcp(let host, let port) = endpoint else { return (socket, endpoint) }
        return (socket, .tcp(host: host, port: boundPort(socket) ?? port))
    }

    private static func boundPort(_ socket: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        guard named == 0 else { return nil }
        let family = Int32(storage.ss_family)
        return withUnsafePointer(to: &storage) { pointer in
            switch family {
            case AF_INET: pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            case AF_INET6: pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            default: nil
            }
        }
    }

    /// "127.0.0.1:51234", or "a local socket".
    private static func peerName(_ socket: Int32) -> String {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST)), service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let named = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                getpeername(socket, address, &length) == 0 && Int32(pointer.pointee.ss_family) != AF_UNIX
                    && getnameinfo(address, length, &host, socklen_t(host.count), &service, socklen_t(service.count),
                                   NI_NUMERICHOST | NI_NUMERICSERV) == 0
            }
        }
        func text(_ characters: [CChar]) -> String {
            String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return named ? "\(text(host)):\(text(service))" : "a local socket"
    }
}
