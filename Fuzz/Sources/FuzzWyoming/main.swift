import Foundation
import FuzzSupport
import HotwordCore
import HotwordWyoming

/// The shipped "computer" model's bytes, read once (from the source tree beside Fuzz/). Decoded
/// for each input: LeakSanitizer cannot follow Swift's tagged enum payloads, so a model kept for
/// the whole run is reported as leaked at exit.
enum Server {
    static let modelBytes: [UInt8] = {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Models/computer.hwks")
        return Array(try! Data(contentsOf: path))
    }()

    static func catalog() -> WakeWordCatalog {
        try! WakeWordCatalog(entries: [WakeWordEntry(name: "computer", model: try! ModelFile.decode(modelBytes))], programVersion: "fuzz")
    }
}

/// One input: a byte that says where to cut, then the bytes a client sends on one Wyoming
/// connection, delivered in two reads cut there (a socket may cut anywhere), parsed into events as the server
/// does and handed to a session; every reply must encode. A typed error ends the connection: a pass.
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
    return 0
}

_ = Server.modelBytes  // read before the first input
runFuzzer(fuzzWyoming)
