import Foundation
import HotwordSUSI
@testable import HotwordData
import HotwordTestSupport
import Testing

/// Fetching from a real HTTP server on 127.0.0.1 that serves an archive made for the test.
@Suite("fetching corpora") final class DownloadTests {
    let folder: URL
    let store: CorpusStore
    let archive: Data
    /// Quick retries, so a broken connection costs the test a tenth of a second.
    let downloader = CorpusDownloader(client: HTTPClient(timeouts: HTTPTimeouts(connect: .seconds(2), total: .seconds(30), stall: .seconds(1))),
                                      attempts: 3, retryDelay: .milliseconds(100))

    init() throws {
        folder = try TestPaths.temporaryDirectory("fetch")
        store = CorpusStore(root: folder.appendingPathComponent("data"))
        archive = try TestCorpora.speechCommands(in: folder)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// Every event, in order.
    final class Events: @unchecked Sendable {  // @unchecked: guarded by `lock`
        private let lock = NSLock()
        private var recorded: [FetchEvent] = []
        func record(_ event: FetchEvent) { lock.withLock { recorded.append(event) } }
        var all: [FetchEvent] { lock.withLock { recorded } }
    }

    private func entry(_ server: TestHTTPServer, checksum: Checksum? = nil, size: CorpusSize? = nil) throws -> CorpusEntry {
        try TestCorpora.entry("speech_commands", .speechCommands, content: archive,
                              url: server.baseURL.appendingPathComponent("data/sc.tar.gz"), checksum: checksum, size: size)
    }

    private var partial: URL { store.partialDownload(of: "speech_commands") }
    private func partialSize() -> Int { (try? Data(contentsOf: partial).count) ?? -1 }

    @Test func aMatchingChecksumIsUnpackedAndTheArchiveDeleted() async throws {
        let server = try TestHTTPServer.serving(archive, at: "/data/sc.tar.gz")
        defer { server.shutdown() }
        let events = Events()
        let counts = try await store.fetch(try entry(server), with: downloader) { events.record($0) }
        #expect(counts == [.words: 4, .noise: 2])
        #expect(events.all.contains(.verified(by: .sha256, sha256: try entry(server).checksum.hex, size: Int64(archive.count))))
        #expect(events.all.contains(.received(bytes: Int64(archive.count), total: Int64(archive.count))))
        #expect(!FileManager.default.fileExists(atPath: store.verifiedArchive(of: "speech_commands").path))
        #expect(server.requests.count == 1 && server.requests[0].header("Range") == nil)
    }

    @Test func aWrongChecksumDeletesTheDownloadAndUnpacksNothing() async throws {
        let server = try TestHTTPServer.serving(archive, at: "/data/sc.tar.gz")
        defer { server.shutdown() }
        let wrong = Checksum("sha256:" + String(repeating: "0", count: 64))!
        await #expect {
            _ = try await store.fetch(try entry(server, checksum: wrong), with: downloader) { _ in }
        } throws: { error in
            guard case .checksumMismatch(let corpus, _, let expected, let computed) = error as? CorpusError else { return false }
            return corpus == "speech_commands" && expected == wrong && computed == (try? self.entry(server).checksum.hex)
        }
        #expect(store.status(of: "speech_commands") == .absent)
        #expect(!FileManager.default.fileExists(atPath: partial.path))
    }

    @Test func anMD5PinIsCheckedAndTheSHA256ToPinIsReported() async throws {
        let server = try TestHTTPServer.serving(archive, at: "/data/sc.tar.gz")
        defer { server.shutdown() }
        let file = folder.appendingPathComponent("a")
        try archive.write(to: file)
        let digests = try FileDigest.of(file, algorithms: [.md5, .sha256])
        let events = Events()
        _ = try await store.fetch(try entry(server, checksum: Checksum("md5:\(digests[.md5]!)"), size: .approximate(1_000)),
                                  with: downloader) { events.record($0) }
        #expect(events.all.contains(.verified(by: .md5, sha256: digests[.sha256]!, size: Int64(archive.count))))
    }

    @Test func aConnectionCutHalfWayIsResumedWithARangeRequest() async throws {
        let half = archive.count / 2
        let server = try TestHTTPServer.serving(archive, at: "/data/sc.tar.gz", cutFirstAfter: half)
        defer { server.shutdown() }
        let events = Events()
        #expect(try await store.fetch(try entry(server), with: downloader) { events.record($0) } == [.words: 4, .noise: 2])
        #expect(server.requests.map { $0.header("Range") } == [nil, "bytes=\(half)-"])
        #expect(events.all.contains { if case .retrying(_, Int64(half), 2, 3) = $0 { true } else { false } })
    }

    /// Offline: the requests are made, and then one error says the server cannot be reached.
    @Test func aServerThatCannotBeReachedIsSaidToBeSoAfterTheRetries() async throws {
        let entry = try TestCorpora.entry("speech_commands", .speechCommands, content: archive,
                                          url: URL(string: "http://127.0.0.1:1/data/sc.tar.gz")!)
        await #expect {
            _ = try await store.fetch(entry, with: downloader) { _ in }
        } throws: { error in
            guard case .unreachable("speech_commands", .couldNotConnect, requests: 3) = error as? CorpusError else { return false }
            return "\(error)".hasPrefix("speech_commands: cannot reach http://127.0.0.1:1/data/sc.tar.gz (3 requests; the last: couldn't connect")
        }
    }

    @Test func anInterruptedDownloadIsResumedByTheNextFetch() async throws {
        let half = archive.count / 2
        let server = try TestHTTPServer.serving(archive, at: "/data/sc.tar.gz", cutFirstAfter: half)
        defer { server.shutdown() }
        var once = downloader
        once.attempts = 1
        await #expect {
            _ = try await store.fetch(try entry(server), with: once) { _ in }
        } throws: { error in
            guard case .download("speech_commands", .connectionLost) = error as? CorpusError else { return false }
            return true
        }
        #expect(partialSize() == half && store.status(of: "speech_commands") == .partial(Int64(half)))
        _ = try await store.fetch(try entry(server), with: once) { _ in }
        #expect(server.requests.map { $0.header("Range") } == [nil, "bytes=\(half)-"])
        #expect(store.status(of: "speech_commands") == .fetched([.words: 4, .noise: 2]))
    }

    @Test func aServerIgnoringRangesIsDownloadedAnew() async throws {
        let server = try TestHTTPServer.serving(archive, at: "/data/sc.tar.gz", honoursRanges: false, cutFirstAfter: archive.count / 3)
        defer { server.shutdown() }
        #expect(try await store.fetch(try entry(server), with: downloader) { _ in } == [.words: 4, .noise: 2])
        #expect(server.requests.count == 2 && server.requests[1].header("Range") == "bytes=\(archive.count / 3)-")
    }

    @Test func aStalledConnectionEndsAfterTheStallTime() async throws {
        // Nothing after the head: libcurl's speed is then 0 from the start (after a burst its
        // moving average would take seconds to fall).
        let server = try TestHTTPServer.serving(archive, at: "/data/sc.tar.gz", cutFirstAfter: 0, hold: .seconds(10))
        defer { server.shutdown() }
        var once = downloader
        once.attempts = 1
        let started = ContinuousClock.now
        await #expect {
            _ = try await store.fetch(try entry(server), with: once) { _ in }
        } throws: { error in
            guard case .download(_, .stalled(_, 1)) = error as? CorpusError else { return false }
            return true
        }
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(partialSize() == 0)
    }

    @Test func aMissingFileIsA404AndLeavesNoDownload() async throws {
        let server = try TestHTTPServer.serving(archive, at: "/elsewhere.tar.gz")
        defer { server.shutdown() }
        await #expect(throws: CorpusError.httpStatus(corpus: "speech_commands", url: try entry(server).url.absoluteString, status: 404)) {
            _ = try await store.fetch(try entry(server), with: downloader) { _ in }
        }
        #expect(partialSize() == 0)
        #expect(server.requests.count == 1)
    }

    @Test func aSecondFetchOfTheSameCorpusWaitsItsTurn() async throws {
        let server = try TestHTTPServer.serving(archive, at: "/data/sc.tar.gz")
        defer { server.shutdown() }
        try FileManager.default.createDirectory(at: store.downloads, withIntermediateDirectories: true)
        // The first fetch's lock, held by another open file description (as another process would).
        let first = open(partial.path, O_WRONLY | O_CREAT, 0o644)
        defer { close(first) }
        #expect(flock(first, LOCK_EX) == 0)
        await #expect(throws: CorpusError.busy(path: partial.path)) {
            _ = try await store.fetch(try entry(server), with: downloader) { _ in }
        }
        #expect(server.requests.isEmpty)
    }

    @Test func aWrongSizeIsRefused() async throws {
        let server = try TestHTTPServer.serving(archive, at: "/data/sc.tar.gz")
        defer { server.shutdown() }
        let pinned = try entry(server, size: .exact(Int64(archive.count + 1)))
        await #expect(throws: CorpusError.sizeMismatch(corpus: "speech_commands", url: pinned.url.absoluteString,
                                                       expected: Int64(archive.count + 1), received: Int64(archive.count))) {
            _ = try await store.fetch(pinned, with: downloader) { _ in }
        }
        #expect(!FileManager.default.fileExists(atPath: partial.path))
    }
}
