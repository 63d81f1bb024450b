import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to 127.0.0.1 that sends what it is given and reads nothing unless
/// asked: the bad clients of a server under test.
public final class RawConnection {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public let socket: Int32

    public init(port: Int, receiveBuffer: Int32? = nil) throws {
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw Failure(description: "connect: \(reason)")
        }
        socket = descriptor
    }

    deinit { close(socket) }

    /// False when the server has closed the connection.
    public func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Whether the server closed the connection (reading and dropping whatever it sent first),
    /// waiting up to `waiting` for it.
    public func isClosedByPeer(waiting: Duration) -> Bool {
        let deadline = ContinuousClock.now + waiting
        var buffer = [UInt8](repeating: 0, count: 4096)
        repeat {
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let left = max(0, Int32((deadline - .now) / .milliseconds(1)))
            guard poll(&poller, 1, left) > 0 else { return false }
            if recv(socket, &buffer, buffer.count, 0) <= 0 { return true }
        } while ContinuousClock.now < deadline
        return false
    }
}
