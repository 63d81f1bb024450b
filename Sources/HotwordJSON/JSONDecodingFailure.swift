import Foundation

/// Why Foundation's `JSONDecoder` refused some bytes, in words. On Linux it says "The given data
/// was not valid JSON." alike for broken syntax, invalid UTF-8 and numbers no type can hold.
public enum JSONDecodingFailure {
    /// What is wrong with `bytes`, which the decoder refused with `error`.
    public static func reason(_ error: any Error, in bytes: some Collection<UInt8>) -> String {
        if let offset = firstInvalidUTF8(in: bytes) { return "not valid UTF-8 (at byte \(offset))" }
        if let number = firstNumberOutOfRange(in: bytes) { return "the number \(number) is out of range" }
        if case DecodingError.dataCorrupted(let context) = error {
            return ((context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String) ?? context.debugDescription
        }
        return "\(error)"
    }

    private static func firstInvalidUTF8(in bytes: some Collection<UInt8>) -> Int? {
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    /// The first number (outside strings) that no Double holds, or too large for any integer:
    /// a decoder refuses those as if they were not JSON.
    private static func firstNumberOutOfRange(in bytes: some Collection<UInt8>) -> String? {
        let numberBytes = Set("0123456789+-.eE".utf8)
        var token: [UInt8] = []
        var found: String?
        func check() {
            guard let value = Double(String(decoding: token, as: UTF8.self)), !value.isFinite || abs(value) >= 0x1p63 else { return }
            found = String(String(decoding: token, as: UTF8.self).prefix(40))
        }
        JSONOutsideStrings.scan(bytes) { _, byte in
            if numberBytes.contains(byte) {
                token.append(byte)
            } else {
                check()
                token.removeAll(keepingCapacity: true)
            }
            return found == nil
        }
        if found == nil { check() }
        return found
    }
}
