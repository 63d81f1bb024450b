/// Why SUSI gave no usable reply. `description` is a one-line technical message (for logs and
/// the command line); `spokenMessage` is what a voice assistant can say instead.
public enum SUSIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The request failed — no connection, a timeout, or an HTTP error status such as an HTML
    /// error page or 503 "your request frequency is too high" — after `attempts` tries.
    case http(HTTPError, attempts: Int)
    /// The server answered 2xx but not with JSON (an HTML page, say from a proxy).
    case notJSON(url: String, excerpt: String)
    /// JSON, but not a SUSI reply (broken JSON, no `answers` list...).
    case malformedReply(url: String, reason: String)
    /// The server understood the request and had no answer (`"answers": []`).
    case noAnswer(query: String)
    /// Logging in failed: wrong credentials, a locked account, or an unreadable login reply.
    case loginRejected(login: String, reason: String)
    /// The server answered HTTP 200 with `"accepted": false` and this `message` (SUSI's soft
    /// failures, such as "Please verify recaptcha").
    case notAccepted(url: String, message: String)
    /// No SUSI token is kept: the call needs one (`hotword login`).
    case notLoggedIn
    /// The server treated the kept token of `login` as anonymous (HTTP 401 where a user is needed):
    /// it expired, or the server forgot it.
    case tokenRejected(login: String)
    /// A new password that the server's policy refuses (checked here first, or the server's 422).
    case passwordRejected(reason: String)
    /// The token file could not be written or removed (`reason` names the file).
    case tokenFile(reason: String)
    /// The asking task was cancelled.
    case cancelled

    public var description: String {
        switch self {
        case .http(let error, let attempts):
            let what = switch error {
            case .status(_, 503, _): "SUSI server busy"
            case .status: "SUSI server error"
            case .timedOut: "SUSI server too slow"
            case .bodyTooLarge: "SUSI server sent too much"
            case .refusedRedirect: "SUSI server redirected elsewhere"
            default: "SUSI server unreachable"
            }
            return "\(what): \(error)" + (attempts > 1 ? " (\(attempts) attempts)" : "")
        case .notJSON(let url, let excerpt):
            return "SUSI server sent something other than JSON from \(url): \(excerpt)"
        case .malformedReply(let url, let reason):
            return "SUSI server sent an unreadable reply from \(url): \(reason)"
        case .noAnswer(let query):
            return "SUSI has no answer to \"\(query)\""
        case .loginRejected(let login, let reason):
            return "SUSI login as \(login) failed: \(reason)"
        case .notAccepted(let url, let message):
            return "SUSI server did not accept the request to \(url): \(message)"
        case .notLoggedIn:
            return "not logged in to SUSI (`hotword login` logs in)"
        case .tokenRejected(let login):
            return "the SUSI server no longer takes the token of \(login) (expired?): `hotword login` logs in again"
        case .passwordRejected(let reason):
            return "SUSI refuses the new password: \(reason)"
        case .tokenFile(let reason):
            return reason
        case .cancelled:
            return "SUSI request cancelled"
        }
    }

    /// A short, polite sentence for the user.
    public var spokenMessage: String {
        switch self {
        case .http(.status(_, 503, _), _): "SUSI is busy right now. Please try again in a moment."
        case .http(.status(_, let status, _), _) where status >= 500: "SUSI had a problem with that question."
        case .http(.status, _): "SUSI could not handle that request."
        case .http(.timedOut, _): "SUSI is taking too long to answer."
        case .http(.bodyTooLarge, _): "SUSI sent an answer I couldn't understand."
        case .http, .notJSON: "I can't reach SUSI right now."
        case .malformedReply: "SUSI sent an answer I couldn't understand."
        case .noAnswer: "Sorry, I have no answer to that."
        case .notAccepted: "SUSI did not accept that request."
        case .tokenFile: "I couldn't store the SUSI login."
        case .notLoggedIn: "You are not logged in to SUSI."
        case .tokenRejected: "The SUSI login has expired."
        case .passwordRejected: "SUSI refuses that password."
        case .loginRejected: "I couldn't log in to SUSI. Please check the account settings."
        case .cancelled: "Cancelled."
        }
    }
}
