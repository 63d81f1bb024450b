import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

// Plain POSIX sockets and one thread per connection, not swift-nio: each connection's work is
// CPU-bound detection that would block an event loop anyway, a blocking read loop per thread is
// the simplest code that keeps connections independent, and it adds no dependency to build on
// a Raspberry Pi. C types stay inside this file.

/// What one connection may cost the server: time, a place among the connections, memory. A
/// client that goes over is closed; the others do not notice.
public struct WyomingServerLimits: Sendable, Equatable {
    /// A connection that sends nothing for this long is closed.
    public var idleTimeout: Duration = .seconds(60)
    public var maximumConnections = 100
    public var event = WyomingEventParser.Limits()
    /// Once an event's first byte is in, the whole event must be within this: a client trickling
    /// a byte now and then is never silent, and would otherwise hold its place for ever.
    public var eventTimeout: Duration = .seconds(10)
    /// When every place is taken, the connection that has sent no whole event for longest makes
    /// room for a new one, if that was at least this long ago (a streaming client sends one
    /// every 10–100 ms): idle and trickling connections cannot lock good clients out.
    public var evictionIdle: Duration = .seconds(2)
    /// Bytes of unfinished events all connections together may hold beyond the first 64 KiB of
    /// each (a streaming client's events are a few KiB; one may be up to 5 MiB): a connection
    /// whose event would take more is closed.
    public var bufferedBytes = 64 << 20
    /// What each connection may hold without drawing on `bufferedBytes`.
    public static let bufferedBytesPerConnection = 64 * 1024
    /// A client that has not taken a reply within this long is dropped, so it cannot hold a thread.
    public var sendTimeout: Duration = .seconds(10)
    /// Lines about troublesome connections (closed, refused, evicted) per second at most; the
    /// rest are counted in the next line, so a flood of bad clients cannot flood the log.
    public var troubleLinesPerSecond = 5

    public init(idleTimeout: Duration = .seconds(60), maximumConnections: Int = 100) {
        self.idleTimeout = idleTimeout
        self.maximumConnections = maximumConnections
    }

    /// Open files besides the connections: the listener, the models' and libraries' files, the
    /// Zeroconf child's pipes, the log.
    public static let reservedFiles = 64

    /// Raises the soft limit of open files to the hard limit if the connections need it, then
    /// says why they still cannot all be served, or nil when they can.
    public static func openFilesProblem(maximumConnections: Int) -> String? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        let needed = rlim_t(maximumConnections + reservedFiles)
        if limit.rlim_cur < needed, limit.rlim_max > limit.rlim_cur {
            limit.rlim_cur = min(limit.rlim_max, needed)
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        guard limit.rlim_cur < needed else { return nil }
        return "max_connections = \(maximumConnections) needs \(needed) open files (\(reservedFiles) besides the connections), but the limit is \(limit.rlim_cur) (ulimit -n; LimitNOFILE= in the systemd unit): lower max_connections or raise the limit"
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
/// A bad connection (malformed framing, idle, too slow, unreadable audio) is logged and closed;
/// the others are not affected.
public final class WyomingServer: @unchecked Sendable {  // @unchecked: the mutable state is guarded by `lock`; the rest is set once in init
    /// Where it listens, with the port the system chose when 0 was asked for.
    public let endpoint: WyomingEndpoint
    private let listener: Int32
    private let limits: WyomingServerLimits
    private let logger: Logger
    private let makeSession: @Sendable () -> WyomingSession
    private let heartbeat: @Sendable (_ connectionsClosed: Int) -> Void
    private let lock = NSLock()
    private var stopped = false
    private var connections: [Int: ConnectionState] = [:]
    private var nextID = 0
    private var closedSinceHeartbeat = 0
    private var bufferedBytes = 0
    private var troubleLog: LogThrottle
    private var listenerClosed = false
    private static let pollMilliseconds: Int32 = 200

    /// What the accept loop and a connection's thread share about it, guarded by the server's lock.
    private final class ConnectionState: @unchecked Sendable {  // @unchecked: every field is guarded by the server's `lock`
        /// When the connection was accepted or last sent a whole event.
        var lastEvent = ContinuousClock.now
        /// Closed to make room for a newer connection.
        var evicted = false
        /// Bytes of unfinished events it holds, counted in the server's `bufferedBytes`.
        var buffered = 0
    }

    /// Binds and listens at once, so an address in use is an error here and not later.
    /// `heartbeat` is called from the accepting thread about once a second (with the number of
    /// connections closed since the last call): for a service watchdog, and to return memory.
    public init(endpoint: WyomingEndpoint, limits: WyomingServerLimits = WyomingServerLimits(), logger: Logger = Logger(label: "hotword.serve"),
                heartbeat: @escaping @Sendable (_ connectionsClosed: Int) -> Void = { _ in },
                makeSession: @escaping @Sendable () -> WyomingSession) throws(WyomingServerError) {
        let (listener, bound) = try Self.listen(on: endpoint)
        self.listener = listener
        self.endpoint = bound
        self.limits = limits
        self.logger = logger
        self.heartbeat = heartbeat
        self.makeSession = makeSession
        troubleLog = LogThrottle(linesPerPeriod: limits.troubleLinesPerSecond, period: .seconds(1))
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

    /// Connections open now (those closed to make room are not counted).
    public var connectionCount: Int { lock.withLock { connections.count } }

    /// Accepts connections until `stop()`, then stops listening (open connections close
    /// within a fraction of a second).
    public func run() {
        defer { closeListener() }
        var lastHeartbeat = ContinuousClock.now
        var acceptBackoff = AcceptBackoff()
        while !lock.withLock({ stopped }) {
            if ContinuousClock.now - lastHeartbeat >= .seconds(1) {
                lastHeartbeat = .now
                heartbeat(lock.withLock { () -> Int in
                    defer { closedSinceHeartbeat = 0 }
                    return closedSinceHeartbeat
                })
            }
            guard POSIXSocket.wait(listener, for: POLLIN, milliseconds: Self.pollMilliseconds) else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                let code = errno
                guard code != EINTR, code != EAGAIN, code != ECONNABORTED else { continue }
                // Out of files or memory, the waiting connection stays queued and poll reports it
                // at once: without a pause this loop would spin and log without end.
                let pause = acceptBackoff.next()
                trouble(.error, "accept failed: \(POSIXSocket.reason(code)); accepting again in \(pause)"
                        + (code == EMFILE ? " (raise the open files limit, LimitNOFILE=, or lower max_connections)" : ""))
                Thread.sleep(forTimeInterval: pause / .seconds(1))
                continue
            }
            acceptBackoff = AcceptBackoff()
            // Not inherited by the Zeroconf child (accept4 with SOCK_CLOEXEC is not in Glibc's Swift overlay).
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            let peer = Self.peerName(connection)
            let (id, state, evicted) = admit()
            guard let state else {
                trouble(.warning, "connection \(id) from \(peer) refused: \(limits.maximumConnections) connections are open and all sent an event within \(limits.evictionIdle)")
                close(connection)
                continue
            }
            if let evicted { trouble(.info, "connection \(evicted) is closed to make room for connection \(id): it sent no whole event for the longest") }
            let thread = Thread { [self] in
                serve(connection, name: "connection \(id) from \(peer)", state: state)
                close(connection)
                lock.withLock {
                    if !state.evicted { connections[id] = nil }
                    bufferedBytes -= state.buffered
                    closedSinceHeartbeat += 1
                }
            }
            thread.name = "wyoming \(id)"
            // 1 MiB, not glibc's 8 MiB: hundreds of connections fit a 32-bit Pi's address space.
            // The JSON decoder's recursion is kept far below it by `WyomingEventParser.Limits.depth`.
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// A place for a new connection: a free one, or the one of the connection that has sent no
    /// whole event for longest (at least `evictionIdle`), which is marked to close. Returns the
    /// new connection's number, its state (nil: refused) and the number of the evicted one.
    private func admit() -> (id: Int, state: ConnectionState?, evicted: Int?) {
        lock.withLock {
            nextID += 1
            var evicted: Int?
            if connections.count >= limits.maximumConnections {
                guard let (oldest, state) = connections.min(by: { $0.value.lastEvent < $1.value.lastEvent }),
                      ContinuousClock.now - state.lastEvent >= limits.evictionIdle else { return (nextID, nil, nil) }
                state.evicted = true
                connections[oldest] = nil
                evicted = oldest
            }
            let state = ConnectionState()
            connections[nextID] = state
            return (nextID, state, evicted)
        }
    }

    /// Makes `run()` return and every connection close within a fraction of a second.
    public func stop() {
        lock.withLock { stopped = true }
    }

    /// A line about a troublesome connection or the listener, unless too many came this second.
    private func trouble(_ level: Logger.Level, _ message: String) {
        guard let left = lock.withLock({ troubleLog.admit() }) else { return }
        logger.log(level: level, "\(message)\(left > 0 ? " (\(left) similar lines left out before this one)" : "")")
    }

    // MARK: One connection

    /// Why a connection is closed by the server, when the client did nothing malformed.
    private enum Budget: Error, CustomStringConvertible {
        case idle(Duration)
        case slowEvent(Duration, received: Int)
        case evicted
        case memory(limit: Int)
        case stopping

        var description: String {
            switch self {
            case .idle(let timeout): "nothing sent for \(timeout)"
            case .slowEvent(let timeout, let received): "an event did not arrive whole within \(timeout) (\(received) bytes of it came)"
            case .evicted: "made room for a newer connection (the server was full and this one sent no whole event for the longest)"
            case .memory(let limit): "its event would take the unfinished events of all connections over \(limit / (1 << 20)) MiB"
            case .stopping: "the server is stopping"
            }
        }
    }

    private func serve(_ socket: Int32, name: String, state: ConnectionState) {
        var on: Int32 = 1
        // Detections go out at once, not after Nagle's delay.
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        logger.debug("\(name): connected")
        var parser = WyomingEventParser(limits: limits.event)
        let session = makeSession()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var lastHeard = ContinuousClock.now
        // When the first byte of the event being received came; nil between events.
        var eventBegan: ContinuousClock.Instant?
        do {
            while true {
                try checkBudget(state, idleSince: lastHeard, eventBegan: eventBegan, received: parser.bufferedCount)
                guard POSIXSocket.wait(socket, for: POLLIN, milliseconds: Self.pollMilliseconds) else { continue }
                let count = POSIXSocket.read(socket, into: &buffer)
                if count < 0 {
                    if -count == Int(EINTR) || -count == Int(EAGAIN) { continue }
                    return trouble(.info, "\(name): closed: \(POSIXSocket.reason(Int32(-count)))")
                }
                if count == 0 {
                    try parser.finish()
                    return logger.debug("\(name): closed by the client")
                }
                lastHeard = .now
                if eventBegan == nil { eventBegan = lastHeard }
                parser.append(buffer[0..<count])
                try reserve(parser.bufferedCount, for: state)
                while let event = try parser.next() {
                    // What is left of this read begins the next event.
                    eventBegan = lastHeard
                    lock.withLock { state.lastEvent = lastHeard }
                    let replies = try session.handle(event)
                    for reply in replies {
                        if reply.type == "detection" { logger.info("\(name): \(reply.data["name"]?.string ?? "?") at \(reply.data["timestamp"]?.integer ?? 0) ms") }
                        guard send(reply, to: socket) else {
                            return trouble(.info, "\(name): closed: it took no reply for \(limits.sendTimeout)")
                        }
                    }
                }
                if parser.bufferedCount == 0 { eventBegan = nil }
                try reserve(parser.bufferedCount, for: state)
            }
        } catch Budget.stopping {
            logger.debug("\(name): closed, the server is stopping")
        } catch let budget as Budget {
            trouble(.info, "\(name): closed: \(budget)")
        } catch {
            trouble(.warning, "\(name): closed: \(error)")
            // Best effort: tell the client why before closing.
            _ = send(WyomingEvent(type: "error", data: ["text": .string("\(error)"), "code": "protocol-error"]), to: socket)
        }
    }

    /// Throws when the connection has used up its time or place.
    private func checkBudget(_ state: ConnectionState, idleSince lastHeard: ContinuousClock.Instant,
                             eventBegan: ContinuousClock.Instant?, received: Int) throws(Budget) {
        let (stopping, evicted) = lock.withLock { () -> (Bool, Bool) in (stopped, state.evicted) }
        if stopping { throw .stopping }
        if evicted { throw .evicted }
        let now = ContinuousClock.now
        if let eventBegan, now - eventBegan > limits.eventTimeout { throw .slowEvent(limits.eventTimeout, received: received) }
        if now - lastHeard > limits.idleTimeout { throw .idle(limits.idleTimeout) }
    }

    /// Counts `buffered` bytes of unfinished events, those beyond its own allowance, as the
    /// connection's share of `limits.bufferedBytes`.
    private func reserve(_ buffered: Int, for state: ConnectionState) throws(Budget) {
        let bytes = max(0, buffered - WyomingServerLimits.bufferedBytesPerConnection)
        let fits = lock.withLock { () -> Bool in
            guard bufferedBytes - state.buffered + bytes <= limits.bufferedBytes else { return false }
            bufferedBytes += bytes - state.buffered
            state.buffered = bytes
            return true
        }
        if !fits { throw .memory(limit: limits.bufferedBytes) }
    }

    /// Writes the whole event within `sendTimeout`; false when the client is gone or does not read.
    private func send(_ event: WyomingEvent, to socket: Int32) -> Bool {
        POSIXSocket.sendAll(socket, event.encoded(), by: .now + limits.sendTimeout) == nil
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
