import FuzzSupport
import HotwordAssistant

/// One input: the text of a `hotword.toml`. The loader must either apply it or return typed
/// errors, leaving the configuration untouched, each error on a line the text has.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzConfiguration(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    // The loader reads files as UTF-8 and reports other bytes as unreadable before parsing.
    guard let text = String(validating: fuzzInput(start, count), as: UTF8.self) else { return 0 }
    let base = AssistantConfiguration(clientVersion: "fuzz")
    var configuration = base
    let errors = ConfigurationLoader.apply(toml: text, file: "fuzz.toml", to: &configuration)
    guard !errors.isEmpty else { return 0 }
    let lineCount = text.utf8.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
    for error in errors {
        _ = error.description
        if let line = error.line, !(1...lineCount).contains(line) {
            fatalError("error on line \(line) of a \(lineCount)-line text: \(error)")
        }
    }
    guard configuration == base else { fatalError("a file with errors changed the configuration") }
    return 0
}

runFuzzer(fuzzConfiguration)
