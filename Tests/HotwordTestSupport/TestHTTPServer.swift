import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A name/value pair as the test server received it (percent-decoding already applied).
public struct TestHTTPField: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// One request as the test server received it.
public struct TestHTTPRequest: Sendable {
    public var method: String
    /// The path without the query, e.g. `/susi/chat.json`.
    public var path: String
    public var query: [TestHTTPField]
    public var headers: [TestHTTPField]
    public var body: Data

    /// The first query parameter with this name.
    public func query(_ name: String) -> String? { query.first { $0.name == name }?.value }

    /// The first header with this name, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The fields of an `application/x-www-form-urlencoded` body.
    public var formFields: [TestHTTPField] { TestHTTPRequest.decodeFields(String(decoding: body, as: UTF8.self)) }

    /// The parts of a `multipart/form-data` body, in order; empty if the body is not multipart.
    public var multipartParts: [TestMultipartPart] {
        guard let contentType = header("Content-Type"), contentType.lowercased().hasPrefix("multipart/form-data"),
              let boundaryRange = contentType.range(of: "boundary=") else { return [] }
        let boundary = contentType[boundaryRange.upperBound...].trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
        return TestMultipartPart.parse(body, boundary: boundary)
    }

    /// Splits `a=1&b=2` into fields, decoding `+` and percent escapes.
    static func decodeFields(_ text: String) -> [TestHTTPField] {
        text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ s: Substring) -> String {
                String(s).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(s)
            }
            return TestHTTPField(decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }
}

/// One part of a `multipart/form-data` body.
public struct TestMultipartPart: Sendable, Equatable {
    public var name: String
    public var fileName: String?
    public var contentType: String?
    public var content: Data

    static func parse(_ body: Data, boundary: String) -> [TestMultipartPart] {
        let bytes = [UInt8](body)
        let delimiter = Array("--\(boundary)".utf8)
        var parts: [TestMultipartPart] = []
        var starts = TestHTTPServer.ranges(of: delimiter, in: bytes)
        starts.append(bytes.count..<bytes.count)
        for (current, next) in zip(starts, starts.dropFirst()) {
            var section = Array(bytes[current.upperBound..<next.lowerBound])
            guard section.starts(with: Array("\r\n".utf8)) else { continue }  // the closing "--"
            section.removeFirst(2)
            if section.suffix(2) == Array("\r\n".utf8)[...] { section.removeLast(2) }
            guard let split = TestHTTPServer.ranges(of: Array("\r\n\r\n".utf8), in: section).first else { continue }
            let headerText = String(decoding: section[..<split.lowerBound], as: UTF8.self)
            var part = TestMultipartPart(name: "", fileName: nil, contentType: nil,
                                         content: Data(section[split.upperBound...]))
            for line in headerText.components(separatedBy: "\r\n") {
                let lower = line.lowercased()
                if lower.hasPrefix("content-disposition:") {
                    part.name = Self.parameter("name", in: line) ?? ""
                    part.fileName = Self.parameter("filename", in: line)
                } else if lower.hasPrefix("content-type:") {
                    part.contentType = line.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces)
                }
            }
            parts.append(part)
        }
        return parts
    }

    private static func parameter(_ name: String, in line: String) -> String? {
        guard let start = line.range(of: "; \(name)=\"") else { return nil }
        let rest = line[start.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }
}

/// What the test server sends back. `delay` holds the answer back (the server gives up
/// early when the client disconnects or the server shuts down). With `bodyLimit` only that many
/// bytes of the body follow the head (which still announces all of it), then the server waits
/// `holdAfterLimit` and closes: a connection cut half-way, or one that stalls.
public struct TestHTTPResponse: Sendable {
    public var status: Int
    public var headers: [TestHTTPField]
    public var body: Data
    public var delay: Duration
    public var bodyLimit: Int?
    public var holdAfterLimit: Duration
    /// The body is sent again and again, chunked, until the client hangs up: a body without end.
    public var endless = false

    public init(status: Int, contentType: String, body: Data, headers: [TestHTTPField] = [],
                delay: Duration = .zero, bodyLimit: Int? = nil, holdAfterLimit: Duration = .zero) {
        self.status = status
        self.headers = [TestHTTPField("Content-Type", contentType)] + headers
        self.body = body
        self.delay = delay
        self.bodyLimit = bodyLimit
        self.holdAfterLimit = holdAfterLimit
    }

    public init(status: Int, contentType: String, body: String, headers: [TestHTTPField] = [],
                delay: Duration = .zero) {
        self.init(status: status, contentType: contentType, body: Data(body.utf8), headers: headers, delay: delay)
    }
}

/// A real HTTP/1.1 server on 127.0.0.1 and an ephemeral (or a given) port, for tests: one thread accepts,
/// one thread per connection answers (`Connection: close`) with what `handler` returns, and
/// every request is recorded (request bodies need a `Content-Length`). It stops by itself after `maxConnections` connections or
/// `lifetime`, so a forgotten server cannot hang a test run; `shutdown()` stops it at once.
public final class TestHTTPServer: @unchecked Sendable {  // @unchecked: mutable state is guarded by `lock`
    public typealias Handler = @Sendable (TestHTTPRequest) -> TestHTTPResponse

    public let port: UInt16
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    private let handler: Handler
    private let listenSocket: Int32
    /// Written to once on shutdown; every poll() of the server watches its read end.
    private let wakeRead: Int32, wakeWrite: Int32
    private let lock = NSLock()
    private var recorded: [TestHTTPRequest] = []
    private var stopped = false
    private let threads = DispatchGroup()

    /// - Parameter port: 0 for any free port; another to bring up a server where clients
    ///   already expect one (see `unusedPort()`).
    public init(port: UInt16 = 0, maxConnections: Int = 100, lifetime: Duration = .seconds(120),
                handler: @escaping Handler) throws {
        self.handler = handler
        let listenSocket = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listenSocket >= 0 else { throw TestServerError.socket("socket", errno) }
        var reuse: Int32 = 1
        setsockopt(listenSocket, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(listenSocket, generic, length) == 0 && listen(listenSocket, 32) == 0
                    && getsockname(listenSocket, generic, &length) == 0
            }
        }
        guard bound else {
            let error = errno
            close(listenSocket)
            throw TestServerError.socket("bind/listen", error)
        }
        var wake: [Int32] = [0, 0]
        guard pipe(&wake) == 0 else {
            close(listenSocket)
            throw TestServerError.socket("pipe", errno)
        }
        self.listenSocket = listenSocket
        self.port = UInt16(bigEndian: address.sin_port)
        self.wakeRead = wake[0]
        self.wakeWrite = wake[1]
        threads.enter()
        Thread { [self] in
            acceptLoop(maxConnections: maxConnections, deadline: ContinuousClock.now + lifetime)
            threads.leave()
        }.start()
    }

    deinit { shutdown() }

    /// A port on 127.0.0.1 where nothing listens now: a server that is down, to be brought up
    /// later with `init(port:)`.
    public static func unusedPort() throws -> UInt16 {
        let probe = try TestHTTPServer { _ in TestHTTPResponse(status: 500, contentType: "text/plain", body: "") }
        probe.shutdown()
        return probe.port
    }

    /// Every request received so far, in arrival order.
    public var requests: [TestHTTPRequest] { lock.withLock { recorded } }

    /// Stops accepting, abandons delayed answers, and waits (at most 5 s) for all threads.
    public func shutdown() {
        let first = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        _ = threads.wait(timeout: .now() + 5)
        close(listenSocket)
        close(wakeRead)
        close(wakeWrite)
    }

    private func acceptLoop(maxConnections: Int, deadline: ContinuousClock.Instant) {
        var accepted = 0
        while accepted < maxConnections {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero, waitReadable(listenSocket, for: remaining) else { return }
            let client = accept(listenSocket, nil, nil)
            guard client >= 0 else { continue }
            accepted += 1
            threads.enter()
            Thread { [self] in
                serve(client)
                close(client)
                threads.leave()
            }.start()
        }
    }

    /// Waits until `socket` is readable (true) or the time is up or the server stops (false).
    private func waitReadable(_ socket: Int32, for duration: Duration) -> Bool {
        var fds = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        let milliseconds = Int32(clamping: duration.components.seconds * 1000
                                 + duration.components.attoseconds / 1_000_000_000_000_000)
        guard poll(&fds, 2, milliseconds) > 0 else { return false }
        return fds[1].revents == 0 && fds[0].revents != 0
    }

    private func serve(_ client: Int32) {
        guard let request = readRequest(client) else { return }
        lock.withLock { recorded.append(request) }
        let response = handler(request)
        // A client that gives up closes its end, which makes the socket readable: stop waiting then.
        if response.delay > .zero, waitReadable(client, for: response.delay) { return }
        if lock.withLock({ stopped }) { return }
        var head = "HTTP/1.1 \(response.status) \(Self.reason(response.status))\r\n"
        for header in response.headers { head += "\(header.name): \(header.value)\r\n" }
        if response.endless {
            let chunk = Data("\(String(response.body.count, radix: 16))\r\n".utf8) + response.body + Data("\r\n".utf8)
            guard sendAll(client, Data((head + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n").utf8)) else { return }
            while !lock.withLock({ stopped }), sendAll(client, chunk) {}
            return
        }
        head += "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
        sendAll(client, Data(head.utf8) + response.body.prefix(response.bodyLimit ?? response.body.count))
        if response.bodyLimit != nil, response.holdAfterLimit > .zero { _ = waitReadable(client, for: response.holdAfterLimit) }
    }

    private func readRequest(_ client: Int32) -> TestHTTPRequest? {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let headerEnd = Array("\r\n\r\n".utf8)
        var bodyStart: Int?
        var contentLength = 0
        var head: [String] = []
        while true {
            if bodyStart == nil, let end = Self.ranges(of: headerEnd, in: buffer).first {
                bodyStart = end.upperBound
                head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
                contentLength = head.dropFirst().compactMap { line -> Int? in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                    return Int(parts[1].trimmingCharacters(in: .whitespaces))
                }.first ?? 0
            }
            if let start = bodyStart, buffer.count - start >= contentLength { break }
            guard buffer.count < 32 * 1024 * 1024, waitReadable(client, for: .seconds(10)) else { return nil }
            let count = recv(client, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            buffer += chunk[..<count]
        }
        let requestLine = head[0].split(separator: " ")
        guard requestLine.count == 3, let start = bodyStart else { return nil }
        let target = requestLine[1].split(separator: "?", maxSplits: 1)
        let headers = head.dropFirst().compactMap { line -> TestHTTPField? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { return nil }
            return TestHTTPField(String(parts[0]), parts[1].trimmingCharacters(in: .whitespaces))
        }
        return TestHTTPRequest(
            method: String(requestLine[0]),
            path: String(target[0]),
            query: target.count > 1 ? TestHTTPRequest.decodeFields(String(target[1])) : [],
            headers: headers,
            body: Data(buffer[start..<(start + contentLength)]))
    }

    /// False when the client is gone.
    @discardableResult
    private func sendAll(_ client: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let sent = send(client, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }
    }

    static func ranges(of needle: [UInt8], in haystack: [UInt8]) -> [Range<Int>] {
        guard !needle.isEmpty, haystack.count >= needle.count else { return [] }
        var found: [Range<Int>] = []
        var index = 0
        while index <= haystack.count - needle.count {
            if haystack[index..<(index + needle.count)].elementsEqual(needle) {
                found.append(index..<(index + needle.count))
                index += needle.count
            } else {
                index += 1
            }
        }
        return found
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 206: "Partial Content"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 404: "Not Found"
        case 416: "Range Not Satisfiable"
        case 500: "Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}

public enum TestServerError: Error, CustomStringConvertible {
    case socket(String, Int32)

    public var description: String {
        switch self {
        case .socket(let call, let code): "test server: \(call) failed: \(String(cString: strerror(code)))"
        }
    }
}
