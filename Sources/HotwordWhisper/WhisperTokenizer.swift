import Foundation

/// Whisper's vocabulary (CTranslate2's vocabulary.txt: the token of id i on line i + 1) and the
/// special tokens the decoder needs. Text tokens are GPT-2 byte-level strings: each byte was
/// written as one printable character (`bytes_to_unicode`), mapped back here.
public struct WhisperTokenizer: Sendable {
    public let tokens: [String]
    public let endOfText: Int
    public let startOfTranscript: Int
    public let noTimestamps: Int
    /// GPT-2's byte-to-character table inverted: character (as a scalar value) → byte.
    private let byteOfCharacter: [UInt32: UInt8]

    public init(contentsOf path: String) throws(WhisperModelError) {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw .fileUnreadable(path: path, reason: (error as NSError).localizedDescription)
        }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        try self.init(tokens: lines, path: path)
    }

    /// `path` names the source in errors.
    init(tokens: [String], path: String) throws(WhisperModelError) {
        self.tokens = tokens
        func id(of special: String) throws(WhisperModelError) -> Int {
            guard let id = tokens.firstIndex(of: special) else {
                throw .invalidCompanion(path: path, key: special, expected: "a line holding the special token \(special)")
            }
            return id
        }
        endOfText = try id(of: "<|endoftext|>")
        startOfTranscript = try id(of: "<|startoftranscript|>")
        noTimestamps = try id(of: "<|notimestamps|>")
        byteOfCharacter = Self.byteLevelTable()
    }

    /// The text of `ids`: text tokens only (below `endOfText`), their bytes joined and read as UTF-8
    /// (a character cut between tokens becomes U+FFFD), surrounding whitespace trimmed.
    public func text(of ids: [Int]) -> String {
        var bytes: [UInt8] = []
        for id in ids where id >= 0 && id < endOfText {
            for scalar in tokens[id].unicodeScalars {
                if let byte = byteOfCharacter[scalar.value] { bytes.append(byte) }
            }
        }
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// GPT-2's bytes_to_unicode, inverted: printable Latin-1 bytes stand for themselves, the other
    /// 68 bytes for U+0100 onwards in byte order.
    private static func byteLevelTable() -> [UInt32: UInt8] {
        let printable = Set(Array(33...126) + Array(161...172) + Array(174...255))
        var table: [UInt32: UInt8] = [:]
        var next: UInt32 = 256
        for byte in 0...255 {
            if printable.contains(byte) {
                table[UInt32(byte)] = UInt8(byte)
            } else {
                table[next] = UInt8(byte)
                next += 1
            }
        }
        return table
    }
}
