import Foundation

/// Archives made for tests by independent tools: GNU tar (with gzip) and Python's zipfile.
public enum TestArchives {
    public struct ToolFailed: Error, CustomStringConvertible {
        public let description: String
    }

    /// Everything in `folder` as a .tar.gz whose members are `./PATH`, as GNU tar writes them.
    public static func tarGz(of folder: URL, to archive: URL) throws {
        try run("/usr/bin/env", ["tar", "-czf", archive.path, "-C", folder.path, "."], in: folder)
    }

    /// The top-level entries of `folder` as a .zip whose members are `NAME/…`.
    public static func zip(of folder: URL, to archive: URL) throws {
        let entries = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        try run("/usr/bin/env", ["python3", "-m", "zipfile", "-c", archive.path] + entries, in: folder)
    }

    /// `count` zero bytes compressed by gzip -9 (about a thousandth of their size): a
    /// compression bomb, for bodies that must be bounded after decoding.
    public static func gzippedZeros(_ count: Int, in folder: URL) throws -> Data {
        let file = folder.appendingPathComponent("zeros.gz")
        try run("/bin/sh", ["-c", "head -c \(count) /dev/zero | gzip -9 > \(file.path)"], in: folder)
        return try Data(contentsOf: file)
    }

    private static func run(_ executable: String, _ arguments: [String], in folder: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ToolFailed(description: "\(arguments.joined(separator: " ")) failed: \(String(decoding: message, as: UTF8.self))")
        }
    }
}

extension TestHTTPServer {
    /// A static file server for `content` at `path`: 200 with all of it, 206 from the start of
    /// a `Range: bytes=N-`, 416 for a range past its end, 404 for any other path. The first
    /// answer can be cut after `cutFirstAfter` body bytes (then held open `hold` before closing),
    /// and ranges can be ignored (every answer a 200), as some servers do.
    public static func serving(_ content: Data, at path: String, honoursRanges: Bool = true,
                               cutFirstAfter: Int? = nil, hold: Duration = .zero) throws -> TestHTTPServer {
        let answered = AnswerCount()
        return try TestHTTPServer { request in
            let first = answered.next() == 0
            guard request.path == path else { return TestHTTPResponse(status: 404, contentType: "text/html", body: "<title>Not Found</title>") }
            let limit = first ? cutFirstAfter : nil
            if honoursRanges, let range = request.header("Range"), range.hasPrefix("bytes="), range.hasSuffix("-"),
               let start = Int(range.dropFirst(6).dropLast()) {
                guard start < content.count else {
                    return TestHTTPResponse(status: 416, contentType: "text/plain", body: "", headers: [TestHTTPField("Content-Range", "bytes */\(content.count)")])
                }
                return TestHTTPResponse(status: 206, contentType: "application/octet-stream", body: content.subdata(in: start..<content.count),
                                        headers: [TestHTTPField("Content-Range", "bytes \(start)-\(content.count - 1)/\(content.count)")],
                                        bodyLimit: limit, holdAfterLimit: hold)
            }
            return TestHTTPResponse(status: 200, contentType: "application/octet-stream", body: content, bodyLimit: limit, holdAfterLimit: hold)
        }
    }

    private final class AnswerCount: @unchecked Sendable {  // @unchecked: guarded by `lock`
        private let lock = NSLock()
        private var count = 0

        func next() -> Int { lock.withLock { defer { count += 1 }; return count } }
    }
}
