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
    /// The account whose token `tokenFile` keeps; nil when there is none.
    public nonisolated static func login(keptIn tokenFile: URL) -> String? {
        SUSIToken.load(from: tokenFile)?.login
    }

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
        try await send(tokenRequest("aaa/login.json", fields, token: token))
    }

    /// A GET of `path` with `fields` and the token, on the server the token belongs to.
    func tokenRequest(_ path: String, _ fields: [HTTPField], token: SUSIToken) -> HTTPRequest {
        let server = URL(string: token.server) ?? configuration.server
        return HTTPRequest.get(server.appendingPathComponent(path),
                               query: fields + [HTTPField("access_token", token.accessToken, isSecret: true)],
                               headers: configuration.headers)
    }

    /// `tokenRequest` sent to a servlet that needs a logged-in user: its 401 means the server took
    /// the token's bearer for anonymous, i.e. it no longer knows the token.
    func sendAsUser(_ path: String, _ fields: [HTTPField], tokenFile: URL) async throws(SUSIError) -> HTTPResponse {
        guard let token = SUSIToken.load(from: tokenFile) else { throw .notLoggedIn }
        do {
            return try await send(tokenRequest(path, fields, token: token))
        } catch .http(.status(_, 401, _), _) {
            throw .tokenRejected(login: token.login)
        }
    }
}

extension SUSIClient {
    /// Changes the password of the account whose token is in `tokenFile` with
    /// `/aaa/changepassword.json`, after checking `SUSIPasswordPolicy` here so a weak password is
    /// explained without a round trip. Returns the server's message. The server keeps existing
    /// tokens valid, so the stored one goes on working.
    public func changePassword(current: String, new: String, tokenFile: URL) async throws(SUSIError) -> String {
        guard let token = SUSIToken.load(from: tokenFile) else { throw .notLoggedIn }
        if let problem = SUSIPasswordPolicy.problem(with: new, login: token.login) { throw .passwordRejected(reason: problem) }
        let request = HTTPRequest.get((URL(string: token.server) ?? configuration.server).appendingPathComponent("aaa/changepassword.json"),
                                      query: [HTTPField("changepassword", token.login),
                                              HTTPField("password", current, isSecret: true),
                                              HTTPField("newpassword", new, isSecret: true),
                                              HTTPField("access_token", token.accessToken, isSecret: true)],
                                      headers: configuration.headers)
        let response: HTTPResponse
        do {
            response = try await send(request)
        } catch .http(.status(_, 422, let body), _) {
            // "Invalid credentials" (wrong current password) or "invalid password" (a stricter policy).
            throw .passwordRejected(reason: "HTTP 422: \(body)")
        }
        let reply = try SUSIValue.acceptedObject(from: response.body, url: response.url)
        return reply["message"]?.string ?? "password changed"
    }
}

/// susi_server's default `users.password.regex`, `^((?=.*\d)(?=.*[A-Z])(?=.*\W).{8,64})$`, and its
/// rule that the password differs from the e-mail. Spelled out rather than run as a regex because
/// Java's `\d`, `[A-Z]` and `\W` are ASCII-only and ICU's are not.
public enum SUSIPasswordPolicy {
    /// Why the server would refuse `password` for `login`; nil when it meets the policy.
    public static func problem(with password: String, login: String) -> String? {
        let length = password.utf16.count  // Java counts UTF-16 units
        let scalars = password.unicodeScalars
        let isWordCharacter: (Unicode.Scalar) -> Bool = { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
        if !(8...64).contains(length) { return "it must be 8 to 64 characters long" }
        if password.contains(where: \.isNewline) { return "it must not contain a line break" }
        if !scalars.contains(where: { ("0"..."9").contains($0) }) { return "it needs a digit" }
        if !scalars.contains(where: { ("A"..."Z").contains($0) }) { return "it needs an upper-case letter (A-Z)" }
        if !scalars.contains(where: { !isWordCharacter($0) }) { return "it needs a character other than a letter, digit or _" }
        if password == login { return "it must differ from the e-mail address" }
        return nil
    }
}
