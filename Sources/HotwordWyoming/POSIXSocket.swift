import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The POSIX socket calls the Wyoming server and client share; C types stay in this file and
/// in the two that use it.
enum POSIXSocket {
    /// A socket address for `endpoint`: TCP resolved with getaddrinfo (`passive` for listening),
    /// or a Unix socket path.
    struct Address {
        var family: Int32
        var storage = sockaddr_storage()
        var length: socklen_t
    }

    /// Why an address cannot be made, in words.
    struct Failure: Error {
        var reason: String
    }

    /// The system's words for `code` (an errno).
    static func reason(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

    static func address(of endpoint: WyomingEndpoint, passive: Bool) -> Result<Address, Failure> {
        switch endpoint {
        case .tcp(let host, let port):
            var hints = addrinfo()
            hints.ai_family = AF_UNSPEC
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            hints.ai_flags = (passive ? AI_PASSIVE : 0) | AI_NUMERICSERV
            var found: UnsafeMutablePointer<addrinfo>?
            let code = getaddrinfo(host, String(port), &hints, &found)
            guard code == 0, let info = found?.pointee, let source = info.ai_addr else {
                return .failure(Failure(reason: "cannot resolve \(host): \(String(cString: gai_strerror(code)))"))
            }
            defer { freeaddrinfo(found) }
            var address = Address(family: info.ai_family, length: info.ai_addrlen)
            withUnsafeMutableBytes(of: &address.storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: source, count: Int(info.ai_addrlen))) }
            return .success(address)
        case .unix(let path):
            var unix = sockaddr_un()
            unix.sun_family = sa_family_t(AF_UNIX)
            let capacity = MemoryLayout.size(ofValue: unix.sun_path)
            guard path.utf8.count < capacity else { return .failure(Failure(reason: "path longer than \(capacity - 1) bytes")) }
            withUnsafeMutableBytes(of: &unix.sun_path) { $0.copyBytes(from: path.utf8 + [0]) }
            var address = Address(family: AF_UNIX, length: socklen_t(MemoryLayout<sockaddr_un>.size))
            withUnsafeMutableBytes(of: &address.storage) { storage in
                withUnsafeBytes(of: unix) { storage.copyMemory(from: $0) }
            }
            return .success(address)
        }
    }

    /// A new stream socket of `family`, closed on exec (not inherited by child processes).
    static func stream(_ family: Int32) -> Int32 {
        socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    }

    /// `bind` or `connect` (`call`) with `address`.
    static func with(_ address: inout Address, _ call: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        let length = address.length
        return withUnsafePointer(to: &address.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call($0, length) }
        }
    }

    /// Waits up to `milliseconds` for `events` (POLLIN, POLLOUT) on `socket`; true when ready.
    static func wait(_ socket: Int32, for events: Int32, milliseconds: Int32) -> Bool {
        var poller = pollfd(fd: socket, events: Int16(events), revents: 0)
        return poll(&poller, 1, milliseconds) > 0
    }

    /// Writes all of `bytes` by `deadline` (however slowly the peer reads, the whole write ends
    /// then); the errno of the failure (ETIMEDOUT at the deadline), or nil. Never raises SIGPIPE.
    static func sendAll(_ socket: Int32, _ bytes: [UInt8], by deadline: ContinuousClock.Instant) -> Int32? {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = send(socket, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                if written >= 0 {
                    offset += written
                    continue
                }
                guard errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK else { return errno }
                let left = milliseconds(until: deadline)
                guard left > 0 else { return ETIMEDOUT }
                _ = wait(socket, for: POLLOUT, milliseconds: left)
            }
            return nil
        }
    }

    /// Whole milliseconds until `deadline` (rounded up), 0 once it has passed.
    static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let left = deadline - .now
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
    }

    /// Reads what is there into `buffer`: the byte count (0 at the end of the stream), or a negative errno.
    static func read(_ socket: Int32, into buffer: inout [UInt8]) -> Int {
        let count = buffer.withUnsafeMutableBytes { Glibc.read(socket, $0.baseAddress, $0.count) }
        return count < 0 ? -Int(errno) : count
    }
}
