import Foundation

/// Why an HTTP request failed. Every case names the URL (secrets redacted).
public enum HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL is not something libcurl may fetch (only http and https are allowed).
    case invalidURL(url: String, reason: String)
    /// The server redirected to a URL hotword does not follow (not http or https: `file://`, say).
    case refusedRedirect(url: String, detail: String)
    /// The host name did not resolve.
    case couldNotResolve(url: String, detail: String)
    /// The connection was refused or the network is unreachable.
    case couldNotConnect(url: String, detail: String)
    /// No connection within the connect timeout.
    case connectTimedOut(url: String, seconds: Double)
    /// Connected, but the whole exchange did not finish within the total timeout.
    case timedOut(url: String, seconds: Double)
    /// The connection broke or the server closed it without a complete answer.
    case connectionLost(url: String, detail: String)
    /// TLS handshake or certificate verification failed.
    case tls(url: String, detail: String)
    /// The server answered with a non-2xx status (see `HTTPResponse.requireSuccess()`);
    /// `body` is a one-line summary of its body.
    case status(url: String, status: Int, body: String)
    /// Less than a byte a second arrived for `seconds` (`HTTPTimeouts.stall`).
    case stalled(url: String, seconds: Double)
    /// The body's receiver (`HTTPBodySink`) stopped the transfer; it knows why.
    case receiverStopped(url: String)
    /// The body (decoded) grew past `limit` bytes, `HTTPClient.maximumBodyBytes`; the transfer was stopped there.
    case bodyTooLarge(url: String, limit: Int)
    /// The task waiting for the response was cancelled.
    case cancelled(url: String)
    /// Any other libcurl failure.
    case transferFailed(url: String, code: Int, detail: String)

    public var url: String {
        switch self {
        case .invalidURL(let url, _), .refusedRedirect(let url, _), .couldNotResolve(let url, _), .couldNotConnect(let url, _),
             .connectTimedOut(let url, _), .timedOut(let url, _), .connectionLost(let url, _),
             .tls(let url, _), .status(let url, _, _), .stalled(let url, _), .receiverStopped(let url), .bodyTooLarge(let url, _), .cancelled(let url),
             .transferFailed(let url, _, _):
            return url
        }
    }

    /// Failures worth another attempt: the request most likely never reached a working server.
    /// A total timeout is not among them — the user has already waited the full time once.
    public var isConnectionFailure: Bool {
        switch self {
        case .couldNotResolve, .couldNotConnect, .connectTimedOut, .connectionLost: return true
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .invalidURL(let url, let reason):
            return "invalid URL \(url): \(reason)"
        case .refusedRedirect(let url, let detail):
            return "\(url) redirected to a URL that is not http or https, which is not followed (\(detail))"
        case .couldNotResolve(let url, let detail):
            return "couldn't resolve the host of \(url) (\(detail))"
        case .couldNotConnect(let url, let detail):
            return "couldn't connect to \(url) (\(detail))"
        case .connectTimedOut(let url, let seconds):
            return "couldn't connect to \(url) within \(HTTPError.format(seconds)) s"
        case .timedOut(let url, let seconds):
            return "\(url) timed out after \(HTTPError.format(seconds)) s"
        case .connectionLost(let url, let detail):
            return "connection to \(url) lost (\(detail))"
        case .tls(let url, let detail):
            return "secure connection to \(url) failed (\(detail))"
        case .status(let url, let status, let body):
            return body.isEmpty ? "\(url) answered HTTP \(status)" : "\(url) answered HTTP \(status): \(body)"
        case .stalled(let url, let seconds):
            return "\(url) sent nothing for \(HTTPError.format(seconds)) s"
        case .receiverStopped(let url):
            return "the transfer from \(url) was stopped by its receiver"
        case .bodyTooLarge(let url, let limit):
            return "\(url) sent more than \(limit / (1 << 20)) MiB (decoded), far more than an answer needs; stopped reading there"
        case .cancelled(let url):
            return "request to \(url) cancelled"
        case .transferFailed(let url, let code, let detail):
            return "request to \(url) failed (curl error \(code): \(detail))"
        }
    }

    static func format(_ seconds: Double) -> String {
        String(format: "%g", seconds)
    }
}
