import Foundation

/// What `SUSIClient.logOut(tokenFile:)` did.
public enum SUSILogout: Sendable, Equatable {
    /// There was no token to forget.
    case notLoggedIn
    /// The token of `login` is forgotten; the server's answer to the logout call, or why it failed.
    /// (Either way the token stays valid on the server until it expires: SUSI cannot revoke it.)
    case loggedOut(login: String, server: Result<String, SUSIError>)
}

/// The cached token and whether the server still takes it.
public struct SUSILoginStatus: Sendable, Equatable {
    public var login: String
    public var server: String
    public var expires: Date
    public var loggedIn: Bool
}

/// The account calls of `hotword login`, `logout` and `whoami`. They work on the token file
/// directly, whatever the configuration's account says, and never put the token or password in
/// an error or a log line (the requests mark them secret, so logged URLs are redacted).
extension SUSIClient {
    /// Logs in with `password` whatever token is cached, and stores the new token in `tokenFile`
    /// (mode 0600). Returns when the token expires.
    public func logIn(as login: String, password: String, tokenFile: URL) async throws(SUSIError) -> Date {
        let token = try await requestToken(for: SUSIAccount(login: login, password: password, tokenFile: tokenFile)).get()
        do { try token.save(to: tokenFile) } catch { throw .tokenFile(reason: error.description) }
        return token.expires
    }

    /// Forgets the token in `tokenFile`, then tells its server with `login.json?logout=true` (there
    /// is no `logout.json`); the file is removed even when the server cannot be told.
    public func logOut(tokenFile: URL) async throws(SUSIError) -> SUSILogout {
        let token = SUSIToken.load(from: tokenFile)
        if unlink(tokenFile.path) != 0, errno != ENOENT {
            throw .tokenFile(reason: "cannot remove the SUSI token file \(tokenFile.path): \(String(cString: strerror(errno)))")
        }
        guard let token else { return .notLoggedIn }
        do {
            let response = try await loginCall(token, [HTTPField("logout", "true")])
            let reply = try SUSIValue.acceptedObject(from: response.body, url: response.url)
            return .loggedOut(login: token.login, server: .success(reply["message"]?.string ?? "logged out"))
        } catch {
            return .loggedOut(login: token.login, server: .failure(error))
        }
    }

    /// Whether the token in `tokenFile` still logs its user in (`login.json?checkLogin=true`);
    /// nil without a token. A token the server no longer knows is not an error: SUSI then simply
    /// treats the caller as anonymous, and so answers `loggedIn: false`.
    public func loginStatus(tokenFile: URL) async throws(SUSIError) -> SUSILoginStatus? {
        guard let token = SUSIToken.load(from: tokenFile) else { return nil }
        let response = try await loginCall(token, [HTTPField("checkLogin", "true")])
        // Here `accepted` is false just when `loggedIn` is: not a failure.
        let reply = try SUSIValue.object(from: response.body, url: response.url)
        guard let loggedIn = reply["loggedIn"]?.bool else {
            throw .malformedReply(url: response.url, reason: "expected \"loggedIn\", true or false")
        }
        return SUSILoginStatus(login: token.login, server: token.server, expires: token.expires,
                               loggedIn: loggedIn)
    }

    /// `/aaa/login.json` with `fields` and the token, on the server the token belongs to.
    private func loginCall(_ token: SUSIToken, _ fields: [HTTPField]) async throws(SUSIError) -> HTTPResponse {
        let server = URL(string: token.server) ?? configuration.server
        let request = HTTPRequest.get(server.appendingPathComponent("aaa/login.json"),
                                      query: fields + [HTTPField("access_token", token.accessToken, isSecret: true)],
                                      headers: configuration.headers)
        return try await send(request)
    }
}
