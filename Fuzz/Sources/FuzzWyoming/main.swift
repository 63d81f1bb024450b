import Foundation
import FuzzSupport
import HotwordCore
import HotwordWyoming

/// The shipped "computer" model's bytes, read once (from the source tree beside Fuzz/). Decoded
/// for each input: LeakSanitizer cannot follow Swift's tagged enum payloads, so a model kept for
/// the whole run is reported as leaked at exit.
enum Server {
    static let modelBytes = sourceFile("Models/computer.hwks")
    /// The real server's sessions are made for every connection: a tiny model (a seed of the
    /// model target) keeps that quick; what is fuzzed there is the server, not detection.
    static let tinyModelBytes = sourceFile("Tests/FuzzCorpus/model/dense-sigmoid.hwks")

    static func sourceFile(_ path: String) -> [UInt8] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return Array(try! Data(contentsOf: root.appendingPathComponent(path)))
    }

    static func catalog(_ bytes: [UInt8] = modelBytes) -> WakeWordCatalog {
        try! WakeWordCatalog(entries: [WakeWordEntry(name: "computer", model: try! ModelFile.decode(bytes))], programVersion: "fuzz")
    }

    /// The real server on 127.0.0.1, running for the whole fuzzing run: its connection threads
    /// have the 1 MiB stacks `hotword serve` gives them, which the main thread's 8 MiB would hide.
    static let running: (server: WyomingServer, endpoint: WyomingEndpoint) = {
        let server = try! WyomingServer(endpoint: .tcp(host: "127.0.0.1", port: 0)) { WyomingSession(catalog: catalog(tinyModelBytes)) }
        Thread { server.run() }.start()
        return (server, server.endpoint)
    }()
}

/// One input: a byte that says where to cut, then the bytes a client sends on one Wyoming
/// connection. First parsed into events as the server does and handed to a session, delivered
/// in two reads cut there: every reply must encode, and only typed errors may end the
/// connection. Then sent to the running server in two writes: whatever it answers must be
/// Wyoming framing, and afterwards it must still answer a `describe` on a new connection.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzWyoming(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = fuzzInput(start, count)
    guard let cut = input.first else { return 0 }
    let bytes = input.dropFirst()
    let split = bytes.startIndex + Int(cut) % (bytes.count + 1)
    var parser = WyomingEventParser()
    let session = WyomingSession(catalog: Server.catalog())
    do {
        for part in [bytes[..<split], bytes[split...]] {
            parser.append(part)
            while let event = try parser.next() {
                for reply in try session.handle(event) { _ = reply.encoded() }
            }
        }
        try parser.finish()
    } catch is WyomingProtocolError {
    } catch is WyomingSessionError {
    } catch {
        fatalError("untyped error: \(error)")
    }
    throughTheServer(Array(bytes[..<split]), Array(bytes[split...]))
    return 0
}

/// Sends the two parts on a connection to the running server, reads what it answers until it
/// closes or stays silent for a second, and checks the server is still there.
func throughTheServer(_ first: [UInt8], _ second: [UInt8]) {
    guard case .tcp(_, let port) = Server.running.endpoint else { fatalError("not TCP") }
    let connection = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(connection, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    precondition(connected == 0, "the server refused a connection: \(String(cString: strerror(errno)))")
    defer { close(connection) }
    for part in [first, second] where !part.isEmpty {
        _ = part.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
    shutdown(connection, Int32(SHUT_WR))
    var replies = WyomingEventParser()
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    var poller = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
    while poll(&poller, 1, 1_000) > 0 {
        let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { break }
        replies.append(buffer[0..<count])
        do {
            while try replies.next() != nil {}
        } catch {
            fatalError("the server answered with something that is not Wyoming: \(error)")
        }
    }
    do {
        let check = try WyomingClientConnection(to: Server.running.endpoint, timeout: .seconds(5))
        try check.send(WyomingEvent(type: "describe"))
        let answer = try check.receive(waitingFor: "info")
        precondition(answer.type == "info", "describe was answered with \(answer.type)")
    } catch {
        fatalError("the server no longer answers: \(error)")
    }
}

_ = Server.modelBytes  // read before the first input
_ = Server.running
runFuzzer(fuzzWyoming)
