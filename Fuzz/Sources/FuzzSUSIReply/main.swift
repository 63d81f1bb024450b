import Foundation
import FuzzSupport
import HotwordSUSI

/// One input: a SUSI server's reply body. A typed `SUSIError` is a pass; a reply is also
/// rendered, since the renderer walks every action, table row and feed item the server sent.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzSUSIReply(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let body = Data(fuzzInput(start, count))
    guard let reply = try? SUSIReply(json: body, url: "http://fuzz/susi/chat.json") else { return 0 }
    _ = SUSIRenderer(verbose: true).steps(for: reply)
    return 0
}

runFuzzer(fuzzSUSIReply)
