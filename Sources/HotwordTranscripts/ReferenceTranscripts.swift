/// One line of a reference list: an audio file and what is said in it.
public struct ReferenceTranscript: Sendable, Equatable {
    /// As written in the list: relative to the list's folder, or absolute.
    public var file: String
    public var text: String
    /// Where it is in the list (1-based), for messages.
    public var line: Int

    public init(file: String, text: String, line: Int) {
        self.file = file
        self.text = text
        self.line = line
    }
}

/// A reference list is wrong; names the list, and the line where there is one.
public enum ReferenceListError: Error, Sendable, Equatable, CustomStringConvertible {
    case badLine(list: String, line: Int, problem: String)
    case empty(list: String)
    case unreadable(list: String, reason: String)

    public var description: String {
        switch self {
        case .badLine(let list, let line, let problem): "\(list):\(line): \(problem)"
        case .empty(let list): "\(list): no transcripts (expected lines of file<TAB>text)"
        case .unreadable(let list, let reason): "cannot read the reference list \(list): \(reason)"
        }
    }
}

/// Reference lists: one utterance a line, `file<TAB>text`, as `../shared/data/speech/*/transcripts.tsv`
/// hold them. A first line `file<TAB>text` is a header; blank lines are skipped.
public enum ReferenceTranscripts {
    /// The transcripts of `text`, the content of the list `list` (named in errors).
    public static func parse(_ text: String, list: String) throws(ReferenceListError) -> [ReferenceTranscript] {
        var transcripts: [ReferenceTranscript] = []
        // By Character: "\r\n" is one, a newline, as "\n" is.
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            if index == 0, line == "file\ttext" { continue }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            func bad(_ problem: String) -> ReferenceListError { .badLine(list: list, line: index + 1, problem: problem) }
            guard fields.count == 2 else {
                throw bad(fields.count == 1 ? "no tab: expected file<TAB>text" : "\(fields.count - 1) tabs: expected one, file<TAB>text")
            }
            let file = fields[0].trimmingWhitespace, said = fields[1].trimmingWhitespace
            guard !file.isEmpty else { throw bad("no file name before the tab") }
            guard !TranscriptWords.normalized(said).isEmpty else { throw bad("no words to compare with after the tab (for \(file))") }
            transcripts.append(ReferenceTranscript(file: file, text: said, line: index + 1))
        }
        guard !transcripts.isEmpty else { throw .empty(list: list) }
        return transcripts
    }
}

extension Substring {
    fileprivate var trimmingWhitespace: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
