/// How deeply JSON text nests, found by counting brackets outside strings rather than by
/// parsing: Foundation's `JSONDecoder` recurses once per level, so text nested a few hundred
/// levels deep overflows a small thread stack before the decoder's own limit (512) is reached.
/// Checked before decoding, this keeps the recursion bounded whatever the input.
public enum JSONNesting {
    /// The offset (from the start of `bytes`) of the bracket that first opens level `limit + 1`,
    /// or nil when objects and arrays nest at most `limit` deep. Malformed text is left to the decoder.
    public static func firstOffset(deeperThan limit: Int, in bytes: some Sequence<UInt8>) -> Int? {
        var depth = 0
        var found: Int?
        JSONOutsideStrings.scan(bytes) { offset, byte in
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                if depth > limit { found = offset }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
            default:
                break
            }
            return found == nil
        }
        return found
    }
}

/// The bytes of JSON text that are not inside strings.
enum JSONOutsideStrings {
    /// Calls `body` with each byte outside strings and its offset — a string's opening quote
    /// included, its content and closing quote not — until `body` returns false.
    static func scan(_ bytes: some Sequence<UInt8>, _ body: (Int, UInt8) -> Bool) {
        var inString = false
        var escaped = false
        for (offset, byte) in bytes.enumerated() {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            inString = byte == UInt8(ascii: "\"")
            guard body(offset, byte) else { return }
        }
    }
}
