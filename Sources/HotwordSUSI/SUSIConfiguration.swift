import Foundation
import HotwordFolders

/// How to talk to a SUSI.AI server.
public struct SUSIConfiguration: Sendable, Equatable {
    public static let defaultServer = URL(string: "https://api.susi.ai")!

    /// The server root; `/susi/chat.json` and `/aaa/login.json` are resolved against it.
    public var server: URL
    /// ISO 639-1 code of the queries and wanted answers; also sent as `Accept-Language`.
    public var language: String
    /// Minutes to add to local time to get UTC, as JavaScript's `getTimezoneOffset()` (UTC+2 → -120).
    /// Nil: the system's offset at the time of each request.
    public var timezoneOffset: Int?
    /// Sent as `device_type`.
    public var deviceType: String
    /// Sent only when both are set.
    public var latitude: Double?
    public var longitude: Double?
    /// Sent only when both are set.
    public var countryName: String?
    public var countryCode: String?
    /// This program's version, sent in the `User-Agent` as `hotword/<version>`.
    public var clientVersion: String
    public var timeouts: HTTPTimeouts
    public var retry: HTTPRetryPolicy
    /// Log in with this account; anonymous use when nil.
    public var account: SUSIAccount?

    public init(clientVersion: String, server: URL = SUSIConfiguration.defaultServer, language: String = "en",
                timezoneOffset: Int? = nil, deviceType: String = "Smart Speaker",
                latitude: Double? = nil, longitude: Double? = nil,
                countryName: String? = nil, countryCode: String? = nil,
                timeouts: HTTPTimeouts = .standard, retry: HTTPRetryPolicy = .standard,
                account: SUSIAccount? = nil) {
        self.clientVersion = clientVersion
        self.server = server
        self.language = language
        self.timezoneOffset = timezoneOffset
        self.deviceType = deviceType
        self.latitude = latitude
        self.longitude = longitude
        self.countryName = countryName
        self.countryCode = countryCode
        self.timeouts = timeouts
        self.retry = retry
        self.account = account
    }

    /// The offset of `timeZone` at `date` in `getTimezoneOffset()` minutes.
    public static func timezoneOffset(of timeZone: TimeZone = .current, at date: Date = Date()) -> Int {
        -timeZone.secondsFromGMT(for: date) / 60
    }

    /// The same on every request, so the server keeps an anonymous user's conversation context
    /// (it identifies anonymous users by address plus these headers).
    var headers: [HTTPField] {
        [HTTPField("User-Agent", "hotword/\(clientVersion)"),
         HTTPField("Accept", "application/json"),
         HTTPField("Accept-Encoding", "gzip, deflate"),
         HTTPField("Accept-Language", language)]
    }

    /// The chat query parameters, in the order the reference clients send them.
    func chatQuery(_ query: String, accessToken: String?) -> [HTTPField] {
        var fields = [HTTPField("q", query),
                      HTTPField("timezoneOffset", String(timezoneOffset ?? Self.timezoneOffset())),
                      HTTPField("language", language),
                      HTTPField("device_type", deviceType)]
        if let latitude, let longitude {
            fields += [HTTPField("latitude", String(latitude)), HTTPField("longitude", String(longitude))]
        }
        if let countryName, let countryCode {
            fields += [HTTPField("country_name", countryName), HTTPField("country_code", countryCode)]
        }
        if let accessToken {
            fields.append(HTTPField("access_token", accessToken, isSecret: true))
        }
        return fields
    }

    func endpoint(_ path: String) -> URL {
        server.appendingPathComponent(path)
    }
}

/// A SUSI.AI account. The password and any token are never logged or printed: `description`
/// and reflection (`dump`, `print`) redact the password.
public struct SUSIAccount: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    public var login: String
    /// Empty: only the token `hotword login` kept in `tokenFile` is used, and not renewed.
    public var password: String
    /// Where the access token is cached between runs (created with mode 0600).
    public var tokenFile: URL

    public init(login: String, password: String, tokenFile: URL = SUSIAccount.defaultTokenFile) {
        self.login = login
        self.password = password
        self.tokenFile = tokenFile
    }

    /// `defaultTokenFile(environment:)` of this process.
    public static var defaultTokenFile: URL {
        defaultTokenFile(environment: ProcessInfo.processInfo.environment)
    }

    /// In the state folder: `$STATE_DIRECTORY/susi-token.json` in a systemd service, otherwise
    /// `~/.local/state/hotword/susi-token.json` (see `UserFolder`).
    public static func defaultTokenFile(environment: [String: String]) -> URL {
        UserFolder.state.file("susi-token.json", environment: environment)
    }

    public var description: String {
        "SUSIAccount(login: \(login), password: <redacted>, tokenFile: \(tokenFile.path))"
    }

    public var customMirror: Mirror {
        Mirror(self, children: ["login": login, "password": "<redacted>", "tokenFile": tokenFile.path])
    }
}
