import Foundation
import HotwordSUSI
import Logging

/// What a fetch reports while it runs (from the transfer's thread).
public enum FetchEvent: Sendable, Equatable {
    /// A request starts: from `offset` (0, or where an interrupted download stopped).
    case downloading(url: String, offset: Int64, total: Int64?)
    /// Bytes of the archive on disk so far.
    case received(bytes: Int64, total: Int64?)
    /// The connection broke; it is resumed from `offset` after a pause.
    case retrying(reason: String, offset: Int64, attempt: Int, of: Int)
    case verifying
    /// Verified by the pinned checksum; `sha256` and `size` are what to pin where only an MD5 is.
    case verified(by: Checksum.Algorithm, sha256: String, size: Int64)
    /// Files kept so far while unpacking.
    case unpacking(files: Int)
}

/// Downloads a corpus's archive to `.downloads/NAME.part`, resuming what is there with a range
/// request, and retrying with a pause when the connection breaks or stalls; then checks size
/// and checksum and renames it to `NAME.archive`. A wrong checksum deletes the download.
public struct CorpusDownloader: Sendable {
    public var client: HTTPClient
    /// Requests per fetch, the first included.
    public var attempts: Int
    /// The pause before the second request, doubled before each further one.
    public var retryDelay: Duration

    public init(client: HTTPClient = HTTPClient(timeouts: .download, logger: Logger(label: "hotword.data")),
                attempts: Int = 5, retryDelay: Duration = .seconds(1)) {
        self.client = client
        self.attempts = attempts
        self.retryDelay = retryDelay
    }

    /// Leaves the verified archive at `store.verifiedArchive(of: entry.name)`.
    func download(_ entry: CorpusEntry, into store: CorpusStore,
                  events: @escaping @Sendable (FetchEvent) -> Void) async throws(CorpusError) {
        try CorpusUnpacker.createFolder(store.downloads)
        let partial = store.partialDownload(of: entry.name)
        var attempt = 1
        // Counts one more request, after a pause when the line broke; throws `failure` when none is left.
        func another(_ failure: CorpusError, pause: Bool, reason: String = "", offset: Int64 = 0) async throws(CorpusError) {
            guard attempt < attempts else { throw failure }
            if pause {
                events(.retrying(reason: reason, offset: offset, attempt: attempt + 1, of: attempts))
                do { try await Task.sleep(for: retryDelay * (1 << min(attempt - 1, 10))) } catch {
                    throw .download(corpus: entry.name, .cancelled(url: entry.url.absoluteString))
                }
            }
            attempt += 1
        }
        while true {
            let sink = try PartialFile(partial, corpus: entry.name, url: entry.url.absoluteString, events: events)
            events(.downloading(url: entry.url.absoluteString, offset: sink.offset, total: entry.size.exactBytes))
            var request = HTTPRequest.get(entry.url)
            if sink.offset > 0 { request.headers.append(HTTPField("Range", "bytes=\(sink.offset)-")) }
            var outcome: Result<HTTPResponse, HTTPError>
            do { outcome = .success(try await client.send(request, bodyInto: sink)) } catch { outcome = .failure(error) }
            let closing = sink.close()
            if let failure = sink.failure ?? closing { throw failure }
            // An answer whose body the file refused is judged by its status, as one without a body.
            if let refused = sink.refused { outcome = .success(refused) }
            switch outcome {
            case .success(let response) where response.status == 416:
                // Asked for the bytes after the end: complete if the server's total is what is here.
                if Self.total(inContentRange: response.header("Content-Range")) == sink.offset { break }
                try? FileManager.default.removeItem(at: partial)
                try await another(.httpStatus(corpus: entry.name, url: entry.url.absoluteString, status: 416), pause: false)
                continue
            case .success(let response) where !(200..<300).contains(response.status):
                throw .httpStatus(corpus: entry.name, url: entry.url.absoluteString, status: response.status)
            case .success:
                guard let total = sink.total, sink.offset < total else { break }
                // The body ended early without the connection failing: ask for the rest.
                let lost = HTTPError.connectionLost(url: entry.url.absoluteString, detail: "\(sink.offset) of \(total) bytes")
                try await another(.download(corpus: entry.name, lost), pause: true, reason: lost.description, offset: sink.offset)
                continue
            case .failure(let error):
                guard Self.isWorthResuming(error) else { throw .download(corpus: entry.name, error) }
                let failure: CorpusError = Self.neverReached(error) ? .unreachable(corpus: entry.name, error, requests: attempts)
                    : .download(corpus: entry.name, error)
                try await another(failure, pause: true, reason: error.description, offset: sink.offset)
                continue
            }
            break
        }
        try verify(entry, partial, events: events)
        guard rename(partial.path, store.verifiedArchive(of: entry.name).path) == 0 else {
            throw .unwritable(path: store.verifiedArchive(of: entry.name).path, reason: String(cString: strerror(errno)))
        }
    }

    private func verify(_ entry: CorpusEntry, _ partial: URL, events: @Sendable (FetchEvent) -> Void) throws(CorpusError) {
        let size = (try? FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? Int64) ?? 0
        if case .exact(let expected) = entry.size, size != expected {
            try? FileManager.default.removeItem(at: partial)
            throw .sizeMismatch(corpus: entry.name, url: entry.url.absoluteString, expected: expected, received: size)
        }
        events(.verifying)
        let algorithms: [Checksum.Algorithm] = entry.checksum.algorithm == .sha256 ? [.sha256] : [entry.checksum.algorithm, .sha256]
        let digests = try FileDigest.of(partial, algorithms: algorithms)
        guard digests[entry.checksum.algorithm] == entry.checksum.hex else {
            try? FileManager.default.removeItem(at: partial)
            throw .checksumMismatch(corpus: entry.name, url: entry.url.absoluteString, expected: entry.checksum,
                                    computed: digests[entry.checksum.algorithm] ?? "")
        }
        events(.verified(by: entry.checksum.algorithm, sha256: digests[.sha256]!, size: size))
    }

    /// Failures a later request may get past: the line broke, stalled or was not there yet.
    static func isWorthResuming(_ error: HTTPError) -> Bool {
        switch error {
        case .connectionLost, .stalled, .couldNotConnect, .couldNotResolve, .connectTimedOut, .timedOut: true
        default: false
        }
    }

    /// Failures of a request that never reached the server.
    static func neverReached(_ error: HTTPError) -> Bool {
        switch error {
        case .couldNotConnect, .couldNotResolve, .connectTimedOut: true
        default: false
        }
    }

    /// TOTAL of `bytes START-END/TOTAL` or `bytes */TOTAL`.
    static func total(inContentRange value: String?) -> Int64? {
        guard let value, let slash = value.lastIndex(of: "/") else { return nil }
        return Int64(value[value.index(after: slash)...].trimmingCharacters(in: .whitespaces))
    }

    /// START of `bytes START-END/TOTAL`.
    static func start(inContentRange value: String?) -> Int64? {
        guard let value, value.lowercased().hasPrefix("bytes "), let dash = value.firstIndex(of: "-") else { return nil }
        return Int64(value[value.index(value.startIndex, offsetBy: 6)..<dash].trimmingCharacters(in: .whitespaces))
    }
}

extension CorpusSize {
    var exactBytes: Int64? {
        if case .exact(let bytes) = self { return bytes }
        return nil
    }
}

/// The download on disk, appended to as the body arrives: from the start for a 200, at its
/// end for a 206 that continues it. It refuses any other answer's body, and a range that does
/// not start where the file ends. Used on the transfer's thread only.
private final class PartialFile: HTTPBodySink, @unchecked Sendable {  // @unchecked: one thread at a time
    private let path: String
    private let corpus: String
    private let url: String
    private let events: @Sendable (FetchEvent) -> Void
    private let descriptor: Int32
    private(set) var offset: Int64
    /// The archive's whole size, once the server said it.
    private(set) var total: Int64?
    /// Why the transfer was stopped here.
    private(set) var failure: CorpusError?
    /// An answer other than 200 or 206, whose body is not written.
    private(set) var refused: HTTPResponse?

    init(_ url: URL, corpus: String, url source: String, events: @escaping @Sendable (FetchEvent) -> Void) throws(CorpusError) {
        path = url.path
        self.corpus = corpus
        self.url = source
        self.events = events
        descriptor = open(url.path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .unwritable(path: url.path, reason: String(cString: strerror(errno))) }
        // Two fetches appending to one file would garble it.
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            Foundation.close(descriptor)
            throw .busy(path: url.path)
        }
        offset = Int64(lseek(descriptor, 0, SEEK_END))
    }

    func begin(status: Int, headers: [HTTPField]) -> Bool {
        func header(_ name: String) -> String? { headers.last { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value }
        switch status {
        case 206:
            let range = header("Content-Range")
            guard CorpusDownloader.start(inContentRange: range) == offset else {
                failure = .rangeMismatch(corpus: corpus, url: url, asked: offset, contentRange: range ?? "(none)")
                return false
            }
            total = CorpusDownloader.total(inContentRange: range)
        case 200:
            // The whole archive again (the server ignores ranges): start the file over.
            guard ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 else {
                failure = .unwritable(path: path, reason: String(cString: strerror(errno)))
                return false
            }
            offset = 0
            total = header("Content-Length").flatMap { Int64($0) }
        default:
            // An error page is not part of the archive; the caller reports the status.
            refused = HTTPResponse(url: url, status: status, headers: headers, body: Data())
            return false
        }
        return true
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var done = 0
        while done < bytes.count {
            let count = Foundation.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if count < 0 {
                if errno == EINTR { continue }
                failure = .unwritable(path: path, reason: String(cString: strerror(errno)))
                return false
            }
            done += count
            offset += Int64(count)
        }
        events(.received(bytes: offset, total: total))
        return true
    }

    /// Closes the file; an error here (data the disk could not take after all) is returned.
    func close() -> CorpusError? {
        Foundation.close(descriptor) == 0 ? nil : .unwritable(path: path, reason: String(cString: strerror(errno)))
    }
}
