import Foundation
import Logging

/// Asks a SUSI.AI server questions.
///
/// Every request carries the same `User-Agent`, `Accept-Encoding` and `Accept-Language`, so an
/// anonymous user keeps their conversation context. Connection failures and 5xx answers are
/// retried with exponential backoff (`SUSIConfiguration.retry`); 4xx answers and timeouts are
/// not. With an account configured the client logs in once and reuses the access token —
/// from memory and from a mode-0600 file — until it expires. Neither the password nor the
/// token is ever logged: URLs are logged with them redacted.
public actor SUSIClient {
    public nonisolated let configuration: SUSIConfiguration
    private let http: HTTPClient
    private let logger: Logger
    private var token: SUSIToken?
    private var triedTokenFile = false
    /// A login in progress, shared by concurrent questions so they log in once.
    private var pendingLogin: Task<Result<SUSIToken, SUSIError>, Never>?

    public init(configuration: SUSIConfiguration, logger: Logger = Logger(label: "hotword.susi")) {
        self.configuration = configuration
        self.logger = logger
        http = HTTPClient(timeouts: configuration.timeouts, logger: logger)
    }

    /// Asks `query` and returns the first answer.
    public func ask(_ query: String) async throws(SUSIError) -> SUSIReply {
        if Task.isCancelled { throw .cancelled }
        var accessToken: String?
        if let account = configuration.account { accessToken = try await validToken(for: account).accessToken }
        let request = HTTPRequest.get(configuration.endpoint("susi/chat.json"),
                                      query: configuration.chatQuery(query, accessToken: accessToken),
                                      headers: configuration.headers)
        let response = try await send(request)
        let reply = try SUSIReply(json: response.body, url: response.url)
        logger.debug("SUSI answered \"\(reply.query)\" with \(reply.actions.count) actions",
                     metadata: ["skills": .array(reply.skills.map { .string($0) })])
        return reply
    }

    /// Logs in now (instead of on the first question) unless a usable token is cached.
    /// Does nothing without an account.
    public func logIn() async throws(SUSIError) {
        guard let account = configuration.account else { return }
        _ = try await validToken(for: account)
    }

    /// Sends with retries; any final failure or non-2xx status becomes `SUSIError.http`.
    func send(_ request: HTTPRequest) async throws(SUSIError) -> HTTPResponse {
        let (result, attempts) = await http.send(request, retrying: configuration.retry)
        do {
            return try result.get().requireSuccess()
        } catch .cancelled {
            throw .cancelled
        } catch {
            throw .http(error, attempts: attempts)
        }
    }

    private func validToken(for account: SUSIAccount) async throws(SUSIError) -> SUSIToken {
        let server = configuration.server.absoluteString
        let now = Date()
        if let token, token.isUsable(login: account.login, server: server, at: now) { return token }
        if !triedTokenFile {
            triedTokenFile = true
            if let cached = SUSIToken.load(from: account.tokenFile),
               cached.isUsable(login: account.login, server: server, at: now) {
                logger.debug("Using the SUSI token cached in \(account.tokenFile.path), valid until \(cached.expires)")
                token = cached
                return cached
            }
        }
        // Without a password only `hotword login` can get a new token.
        guard !account.password.isEmpty else { throw .tokenRejected(login: account.login) }
        let login = pendingLogin ?? Task { await self.requestCachedToken(for: account) }
        pendingLogin = login
        let result = await login.value
        pendingLogin = nil
        let fresh = try result.get()
        token = fresh
        return fresh
    }

    /// A fresh token, cached in the token file; a file that cannot be written is only logged,
    /// as the token still works for this run.
    private func requestCachedToken(for account: SUSIAccount) async -> Result<SUSIToken, SUSIError> {
        let result = await requestToken(for: account)
        guard case .success(let token) = result else { return result }
        do {
            try token.save(to: account.tokenFile)
            logger.info("Logged in to SUSI as \(account.login); token cached in \(account.tokenFile.path) until \(token.expires)")
        } catch {
            logger.warning("Logged in to SUSI as \(account.login), but \(error); logging in again next run")
        }
        return result
    }

    /// Logs in with `/aaa/login.json`; the token is not stored.
    func requestToken(for account: SUSIAccount) async -> Result<SUSIToken, SUSIError> {
        let request = HTTPRequest.get(configuration.endpoint("aaa/login.json"),
                                      query: [HTTPField("login", account.login),
                                              HTTPField("password", account.password, isSecret: true),
                                              HTTPField("type", "access-token")],
                                      headers: configuration.headers)
        let response: HTTPResponse
        do {
            response = try await send(request)
        } catch .http(.status(_, let status, let body), _) where (400..<500).contains(status) {
            return .failure(.loginRejected(login: account.login, reason: "HTTP \(status): \(body)"))
        } catch {
            return .failure(error)
        }
        // The body holds the token: it must not end up in an error message or a log.
        guard let reply = try? SUSIValue.parse(response.body), reply.members != nil else {
            return .failure(.loginRejected(login: account.login, reason: "the login reply is not JSON"))
        }
        guard reply["accepted"]?.bool == true, let accessToken = reply["access_token"]?.string, !accessToken.isEmpty else {
            let message = reply["message"]?.string ?? "not accepted"
            return .failure(.loginRejected(login: account.login, reason: message))
        }
        // SUSI tokens last 7 days unless the server says otherwise.
        let validSeconds = reply["valid_seconds"]?.int ?? 604_800
        return .success(SUSIToken(login: account.login, server: configuration.server.absoluteString,
                                  accessToken: accessToken, expires: Date().addingTimeInterval(Double(validSeconds))))
    }
}
