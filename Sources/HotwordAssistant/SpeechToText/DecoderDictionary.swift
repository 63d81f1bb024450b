import Foundation
import Logging

/// The pronunciation dictionary cut to the words the language models know. pocketsphinx loads
/// every entry of its dictionary, but its n-gram search only ever reaches words its model has:
/// of Debian's 134 723 entries, the general model's 72 547 words keep 79 420, and the decoder holds
/// 13 MB less (docs/stt.md, "Memory"), with the same transcripts.
///
/// The cut is written once into the cache folder, named by what it was cut from (the files'
/// paths, sizes and modification times), atomically; older cuts there are removed.
public enum DecoderDictionary {
    private static let prefix = "stt-dictionary-"
    private static let logger = Logger(label: "hotword.stt")

    /// The cut of `dictionary` to the words of `languageModels`, in `folder`: made if missing, nil
    /// (use the whole dictionary) when a file cannot be read or the cut not written — a decoder
    /// larger than needed rather than none. Runs on the pocketsphinx queue only.
    static func cut(_ dictionary: String, to languageModels: [String], in folder: URL) -> String? {
        guard let key = cacheKey([dictionary] + languageModels) else { return nil }
        let file = folder.appendingPathComponent("\(prefix)\(key).dict")
        if FileManager.default.isReadableFile(atPath: file.path) { return file.path }
        var words = Set<String>()
        for model in languageModels {
            guard let vocabulary = PocketSphinxEngine.vocabulary(ofLanguageModel: model) else { return nil }
            words.formUnion(vocabulary)
        }
        guard let text = try? String(contentsOfFile: dictionary, encoding: .utf8) else { return nil }
        let kept = entries(of: text, spelling: words)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(kept.utf8).write(to: file, options: .atomic)
        } catch {
            logger.warning("the dictionary cut to the language model's words was not written; using the whole dictionary",
                           metadata: ["file": "\(file.path)", "reason": "\(error.localizedDescription)"])
            return nil
        }
        removeCuts(in: folder, except: file.lastPathComponent)
        return file.path
    }

    /// The lines of a dictionary whose headword — without the `(2)` of an alternative
    /// pronunciation — is one of `words`.
    static func entries(of dictionary: String, spelling words: Set<String>) -> String {
        var kept = ""
        dictionary.enumerateLines { line, _ in
            let headword = line.prefix { $0 != " " && $0 != "\t" }
            let word = headword.firstIndex(of: "(").map { headword[..<$0] } ?? headword
            if words.contains(String(word)) { kept += line + "\n" }
        }
        return kept
    }

    /// FNV-1a of each file's path, size and modification time: a cut is made again when a file changes.
    private static func cacheKey(_ paths: [String]) -> String? {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for path in paths {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                  let size = attributes[.size] as? NSNumber, let modified = attributes[.modificationDate] as? Date
            else { return nil }
            for byte in "\(path)\u{0}\(size)\u{0}\(modified.timeIntervalSince1970)\u{0}".utf8 {
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            }
        }
        return String(hash, radix: 16)
    }

    private static func removeCuts(in folder: URL, except kept: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".dict") && name != kept {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }
}
