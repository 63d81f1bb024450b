import Foundation
import FuzzSupport
import HotwordCore
import HotwordWyoming

/// The server's models: the shipped "computer", read once (from the source tree beside Fuzz/).
let catalog: WakeWordCatalog = {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Models/computer.hwks")
    let model = try! ModelFile.decode(Array(try! Data(contentsOf: path)))
    return try! WakeWordCatalog(entries: [WakeWordEntry(name: "computer", model: model)], programVersion: "fuzz")
}()

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
    let session = WyomingSession(catalog: catalog)
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

runFuzzer(fuzzWyoming)
