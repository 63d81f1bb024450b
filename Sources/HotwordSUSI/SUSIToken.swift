import Foundation

/// A SUSI access token, the account and server it belongs to, and when it expires.
struct SUSIToken: Codable, Sendable, Equatable {
    var login: String
    var server: String
    var accessToken: String
    var expires: Date

    enum CodingKeys: String, CodingKey {
        case login, server, expires
        case accessToken = "access_token"
    }

    /// Usable for `login` on `server` for at least another minute after `now`.
    func isUsable(login: String, server: String, at now: Date) -> Bool {
        self.login == login && self.server == server && expires > now.addingTimeInterval(60)
    }

    /// Reads a cached token; nil when there is none or it cannot be read (the caller logs in again).
    static func load(from file: URL) -> SUSIToken? {
        guard let data = try? Data(contentsOf: file) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try? decoder.decode(SUSIToken.self, from: data)
    }

    /// Writes the token to `file`, readable by its owner only (mode 0600, folder 0700): written to a
    /// new file created with that mode, then renamed over the old one.
    func save(to file: URL) throws(SUSITokenFileError) {
        let folder = file.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw SUSITokenFileError(path: folder.path, reason: "cannot create the folder (\(error.localizedDescription))")
        }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(self) else {
            throw SUSITokenFileError(path: file.path, reason: "cannot encode the token")
        }
        let temporary = folder.appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString)")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw SUSITokenFileError(path: temporary.path, errno: errno) }
        // The umask can only clear bits; set the mode exactly anyway.
        var failure: Int32 = fchmod(descriptor, 0o600) == 0 ? 0 : errno
        if failure == 0 {
            failure = data.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0 { return errno }
                    offset += written
                }
                return 0
            }
        }
        if close(descriptor) != 0, failure == 0 { failure = errno }
        if failure == 0, rename(temporary.path, file.path) != 0 { failure = errno }
        if failure != 0 {
            unlink(temporary.path)
            throw SUSITokenFileError(path: file.path, errno: failure)
        }
    }
}

/// The token cache could not be written; the token still works for this run.
struct SUSITokenFileError: Error, CustomStringConvertible {
    var path: String
    var reason: String

    init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    init(path: String, errno code: Int32) {
        self.init(path: path, reason: String(cString: strerror(code)))
    }

    var description: String { "cannot write the SUSI token file \(path): \(reason)" }
}
