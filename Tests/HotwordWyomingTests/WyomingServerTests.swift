import Foundation
import HotwordModels
import HotwordTestSupport
import HotwordWyoming
import Testing

/// The server's budgets, on 127.0.0.1 with short limits: whatever bad clients do, each costs its
/// own connection, and a good client (the project's own `WyomingClientConnection`) is served.
@Suite struct WyomingServerTests {
    let catalog: WakeWordCatalog

    init() throws {
        let model = try ModelStore.load(TestPaths.projectRoot.appendingPathComponent("Models/computer.hwks").path)
        catalog = try WakeWordCatalog(entries: [WakeWordEntry(name: "computer", model: model)], programVersion: "test")
    }

    /// A server running on a thread of its own until `stop()`, and what it logged.
    private func start(_ limits: WyomingServerLimits) throws -> (WyomingServer, LogCapture, port: Int) {
        let capture = LogCapture()
        let catalog = catalog
        let server = try WyomingServer(endpoint: .tcp(host: "127.0.0.1", port: 0), limits: limits, logger: capture.logger()) {
            WyomingSession(catalog: catalog)
        }
        Thread { server.run() }.start()
        let port: Int? = if case .tcp(_, let port) = server.endpoint { port } else { nil }
        return (server, capture, try #require(port))
    }

    /// `describe` answered with `info` within `timeout`, on a fresh connection.
    private func describe(port: Int, timeout: Duration = .seconds(5)) throws -> String {
        let client = try WyomingClientConnection(to: .tcp(host: "127.0.0.1", port: port), timeout: timeout)
        try client.send(WyomingEvent(type: "describe"))
        return try client.receive(waitingFor: "info").type
    }

    private func waitFor(_ timeout: Duration, _ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return condition()
    }

    @Test func aClientTricklingAnEventIsClosedWhenTheEventIsLate() throws {
        var limits = WyomingServerLimits()
        limits.eventTimeout = .seconds(1)
        let (server, capture, port) = try start(limits)
        defer { server.stop() }
        let trickler = try RawConnection(port: port)
        let began = ContinuousClock.now
        // Never silent for long, so the idle timeout (60 s) alone would keep it open.
        var closed = false
        for byte in "{\"type\": \"describe\"".utf8 where !closed {
            closed = !trickler.send([byte]) || trickler.isClosedByPeer(waiting: .milliseconds(150))
        }
        #expect(closed, "still open after \(ContinuousClock.now - began)")
        #expect(ContinuousClock.now - began < .seconds(3))
        #expect(waitFor(.seconds(2)) { capture.lines.contains { $0.contains("an event did not arrive whole within 1.0 seconds") } }, "\(capture.lines)")
    }

    @Test func idleAndTricklingConnectionsMakeRoomForAGoodClient() throws {
        var limits = WyomingServerLimits(maximumConnections: 20)
        limits.evictionIdle = .milliseconds(500)
        let (server, capture, port) = try start(limits)
        defer { server.stop() }
        let idle = try (0..<20).map { _ in try RawConnection(port: port) }
        #expect(waitFor(.seconds(2)) { server.connectionCount == 20 })
        Thread.sleep(forTimeInterval: 0.6)
        let began = ContinuousClock.now
        #expect(try describe(port: port) == "info")
        #expect(ContinuousClock.now - began < .seconds(2))
        #expect(waitFor(.seconds(2)) { idle.contains { $0.isClosedByPeer(waiting: .zero) } })
        #expect(capture.lines.contains { $0.contains("closed to make room for connection 21") }, "\(capture.lines)")
        // A full server whose connections all just sent an event refuses the newcomer instead.
        #expect(server.connectionCount <= 20)
    }

    @Test func unfinishedEventsTogetherStayWithinTheMemoryBudget() throws {
        var limits = WyomingServerLimits()
        limits.bufferedBytes = 8 << 20
        let (server, capture, port) = try start(limits)
        defer { server.stop() }
        // Each holds an event of 4 MiB payload, one byte short, as in the probe (99 of them: 767 MB).
        let header = Array("{\"type\": \"audio-chunk\", \"data\": {\"rate\": 16000, \"width\": 2, \"channels\": 1}, \"payload_length\": \(4 << 20)}\n".utf8)
        let holders = try (0..<5).map { _ in try RawConnection(port: port) }
        for holder in holders {
            _ = holder.send(header + [UInt8](repeating: 0, count: (4 << 20) - 1))
        }
        #expect(waitFor(.seconds(5)) { capture.lines.filter { $0.contains("over 8 MiB") }.count >= 3 }, "\(capture.lines)")
        #expect(try describe(port: port) == "info")
    }

    @Test func aFloodOfBadClientsWritesAFewLinesNotOnePerClient() throws {
        let (server, capture, port) = try start(WyomingServerLimits())
        defer { server.stop() }
        for _ in 0..<50 {
            let client = try RawConnection(port: port)
            _ = client.send(Array("{\"type\": \"x\", \"data_length\": \"\(String(repeating: "A", count: 10_000))\"}\n".utf8))
            _ = client.isClosedByPeer(waiting: .seconds(2))
        }
        #expect(try describe(port: port) == "info")
        // The next line after a quiet second says how many were left out.
        Thread.sleep(forTimeInterval: 1.1)
        _ = try RawConnection(port: port).send(Array("garbage\n".utf8))
        #expect(waitFor(.seconds(2)) { capture.lines.contains { $0.contains("similar lines left out") } })
        let lines = capture.lines.filter { $0.contains("closed: ") }
        #expect(lines.count < 25, "\(lines.count) lines")
        #expect(lines.allSatisfy { $0.utf8.count < 600 }, "a line echoes the client's 10,000 bytes")
    }

    @Test func aClientThatReadsNothingIsDroppedAtTheSendTimeout() throws {
        var limits = WyomingServerLimits()
        limits.sendTimeout = .seconds(1)
        let (server, capture, port) = try start(limits)
        defer { server.stop() }
        let client = try RawConnection(port: port, receiveBuffer: 4096)
        // Its own sends give up after 0.1 s, so it sees when the server stops reading (stuck in a send).
        var giveUp = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(client.socket, SOL_SOCKET, SO_SNDTIMEO, &giveUp, socklen_t(MemoryLayout<timeval>.size))
        let describe = Array("{\"type\": \"describe\"}\n".utf8)
        let began = ContinuousClock.now
        var lastProgress = began
        var offset = 0  // into the event being sent: a send cut short goes on where it stopped
        // Asks and asks and never reads the answers, until the server closes the connection.
        while ContinuousClock.now - began < .seconds(30) {
            let sent = describe[offset...].withUnsafeBytes { send(client.socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent > 0 {
                offset = (offset + sent) % describe.count
                lastProgress = .now
            } else if errno != EAGAIN, errno != EINTR {
                break
            }
        }
        let closed = ContinuousClock.now
        #expect(waitFor(.seconds(2)) { capture.lines.contains { $0.contains("it took no reply for 1.0 seconds") } }, "\(capture.lines.suffix(3))")
        // The server stopped reading at most when the client's sends stopped going through.
        #expect(closed - lastProgress < .seconds(4), "closed \(closed - lastProgress) after the last send went through")
    }
}
