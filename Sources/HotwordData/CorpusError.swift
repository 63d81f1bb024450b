import Foundation
import HotwordSUSI

/// Why a corpus could not be listed, fetched or unpacked. Every case names the file, URL or
/// corpus concerned and what was expected.
public enum CorpusError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A line of the catalogue is wrong.
    case catalogue(file: String, line: Int, problem: String)
    case catalogueUnreadable(file: String, reason: String)
    case noCatalogue(searched: [String])
    /// A name on the command line that the catalogue does not list.
    case unknownCorpus(name: String, known: [String])
    /// The transfer failed (after the retries a broken connection gets).
    case download(corpus: String, HTTPError)
    /// Not one of `requests` got through to the server (offline, DNS, the server down).
    case unreachable(corpus: String, HTTPError, requests: Int)
    case httpStatus(corpus: String, url: String, status: Int)
    /// The server answered a range request with another range than asked for.
    case rangeMismatch(corpus: String, url: String, asked: Int64, contentRange: String)
    case sizeMismatch(corpus: String, url: String, expected: Int64, received: Int64)
    case checksumMismatch(corpus: String, url: String, expected: Checksum, computed: String)
    /// A file or folder could not be written (a full disk: "No space left on device").
    case unwritable(path: String, reason: String)
    case unreadable(path: String, reason: String)
    /// Another fetch is writing this download.
    case busy(path: String)
    case archive(path: String, reason: String)
    /// Nothing in the archive matched the layout the catalogue names.
    case nothingToKeep(corpus: String, layout: String, archive: String)

    public var description: String {
        switch self {
        case .catalogue(let file, let line, let problem):
            return "\(file):\(line): \(problem)"
        case .catalogueUnreadable(let file, let reason):
            return "cannot read the corpus catalogue \(file): \(reason)"
        case .noCatalogue(let searched):
            return "no corpus catalogue (looked for catalogue.tsv in \(searched.joined(separator: ", "))); give one with --catalogue FILE"
        case .unknownCorpus(let name, let known):
            return "no corpus named '\(name)' in the catalogue; it lists \(known.joined(separator: ", ")) (hotword data list)"
        case .download(let corpus, let error):
            return "\(corpus): \(error)"
        case .unreachable(let corpus, let error, let requests):
            return "\(corpus): cannot reach \(error.url) (\(requests) requests; the last: \(error)); check the network, "
                + "or fetch again later"
        case .httpStatus(let corpus, let url, let status):
            return "\(corpus): \(url) answered HTTP \(status)"
        case .rangeMismatch(let corpus, let url, let asked, let contentRange):
            return "\(corpus): asked \(url) for the bytes from \(asked) on, it sent 'Content-Range: \(contentRange)'"
        case .sizeMismatch(let corpus, let url, let expected, let received):
            return "\(corpus): \(url) is \(received) bytes, the catalogue says \(expected); the download was deleted"
        case .checksumMismatch(let corpus, let url, let expected, let computed):
            return "\(corpus): the download of \(url) has \(expected.algorithm.rawValue) \(computed), the catalogue says \(expected.hex); the download was deleted (run again to fetch it anew)"
        case .unwritable(let path, let reason):
            return "cannot write \(path): \(reason)"
        case .unreadable(let path, let reason):
            return "cannot read \(path): \(reason)"
        case .busy(let path):
            return "another hotword data fetch is downloading into \(path); wait for it to finish"
        case .archive(let path, let reason):
            return "\(path): not a readable archive: \(reason)"
        case .nothingToKeep(let corpus, let layout, let archive):
            return "\(corpus): \(archive) holds no file where the \(layout) layout expects its audio; the catalogue names the wrong layout"
        }
    }
}
