import FuzzSupport
import HotwordTOML

/// One input: the text of a `hotword.toml`. The parser must either parse it or throw a syntax
/// error on a line and column the text has; every key it places is on a line the text has; and
/// every value written back as TOML (`tomlText`, which messages about values show) reads back
/// as the same value.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzConfiguration(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    // The configuration loader reads files as UTF-8 and reports other bytes as unreadable before parsing.
    guard let text = String(validating: fuzzInput(start, count), as: UTF8.self) else { return 0 }
    let lineCount = text.utf8.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
    let document: TOMLDocument
    do {
        document = try TOMLDocument(text)
    } catch {
        _ = error.description
        guard (1...lineCount).contains(error.line), error.column >= 1 else {
            fatalError("syntax error at line \(error.line), column \(error.column) of a \(lineCount)-line text: \(error)")
        }
        return 0
    }
    check(document.root, path: [], in: document, lineCount: lineCount)
    return 0
}

/// Checks the line of every key under `table` and that each value without tables in it reads back.
func check(_ table: TOMLTable, path: [String], in document: TOMLDocument, lineCount: Int) {
    for (key, value) in table.entries {
        let keyPath = path + [key]
        if let line = document.line(of: keyPath), !(1...lineCount).contains(line) {
            fatalError("\(TOMLDocument.dotted(keyPath)) on line \(line) of a \(lineCount)-line text")
        }
        if let child = value.table {
            check(child, path: keyPath, in: document, lineCount: lineCount)
        } else if !containsTable(value) {
            let written = value.tomlText
            // Compared as text: nan is not equal to itself.
            let reread = try? TOMLDocument("key = \(written)").root["key"]?.tomlText
            guard reread == written else {
                fatalError("\(TOMLDocument.dotted(keyPath)) = \(written) reads back as \(reread ?? "a syntax error")")
            }
        }
    }
}

/// Whether `value` is or holds a table (written back abbreviated, so not as TOML).
func containsTable(_ value: TOMLValue) -> Bool {
    if value.table != nil { return true }
    return value.array?.contains(where: containsTable) ?? false
}

runFuzzer(fuzzConfiguration)
