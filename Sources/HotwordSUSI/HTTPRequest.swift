import Foundation

/// A name/value pair: a query parameter, a form field or a header.
///
/// Fields marked `isSecret` (passwords, access tokens) are sent normally but shown as
/// `<redacted>` in every URL the HTTP layer logs or puts into an error.
public struct HTTPField: Sendable, Equatable, CustomStringConvertible {
    public var name: String
    public var value: String
    public var isSecret: Bool

    public init(_ name: String, _ value: String, isSecret: Bool = false) {
        self.name = name
        self.value = value
        self.isSecret = isSecret
    }

    /// `name=value`, percent-encoded as in a query string or a form body.
    var formEncoded: String {
        HTTPField.percentEncode(name) + "=" + HTTPField.percentEncode(value)
    }

    /// Like `formEncoded`, with the value of a secret field replaced.
    var redactedFormEncoded: String {
        isSecret ? HTTPField.percentEncode(name) + "=<redacted>" : formEncoded
    }

    public var description: String { "\(name): \(isSecret ? "<redacted>" : value)" }

    private static let hexDigits = Array("0123456789ABCDEF".unicodeScalars)

    /// Percent-encodes everything but RFC 3986 unreserved characters, which is valid both in a
    /// query string and in an `application/x-www-form-urlencoded` body.
    static func percentEncode(_ text: String) -> String {
        var encoded = ""
        encoded.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                encoded.unicodeScalars.append("%")
                encoded.unicodeScalars.append(HTTPField.hexDigits[Int(byte >> 4)])
                encoded.unicodeScalars.append(HTTPField.hexDigits[Int(byte & 0x0F)])
            }
        }
        return encoded
    }
}

/// A file sent as one part of a `multipart/form-data` body.
public struct HTTPFilePart: Sendable, Equatable {
    /// The form field name, e.g. `file` for OpenAI-compatible `/v1/audio/transcriptions`.
    public var fieldName: String
    /// The file name the server sees, e.g. `speech.wav`.
    public var fileName: String
    /// The part's `Content-Type`, e.g. `audio/wav`.
    public var contentType: String
    public var content: Data

    public init(fieldName: String, fileName: String, contentType: String, content: Data) {
        self.fieldName = fieldName
        self.fileName = fileName
        self.contentType = contentType
        self.content = content
    }
}

/// How long a request may take. libcurl enforces them; the total includes connecting.
public struct HTTPTimeouts: Sendable, Equatable {
    public var connect: Duration
    public var total: Duration
    /// Gives up when less than a byte a second arrives for this long (whole seconds, at least 1);
    /// nil: only `total` ends a slow transfer.
    public var stall: Duration?

    public init(connect: Duration, total: Duration, stall: Duration? = nil) {
        self.connect = connect
        self.total = total
        self.stall = stall
    }

    public static let standard = HTTPTimeouts(connect: .seconds(5), total: .seconds(15))
    /// For downloads of any size: a total no slow line reaches (a week), but a minute without
    /// data ends the transfer.
    public static let download = HTTPTimeouts(connect: .seconds(15), total: .seconds(7 * 24 * 3600), stall: .seconds(60))
}

extension Duration {
    /// Whole milliseconds, at least 1 (libcurl reads 0 as "no timeout").
    var inMilliseconds: Int {
        max(1, Int(components.seconds) * 1000 + Int(components.attoseconds / 1_000_000_000_000_000))
    }
}

/// One HTTP request. GET when there is no body, POST otherwise.
public struct HTTPRequest: Sendable, Equatable {
    public enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
    }

    public enum Body: Sendable, Equatable {
        case none
        /// `application/x-www-form-urlencoded` fields.
        case form([HTTPField])
        /// `multipart/form-data`: plain fields, then files.
        case multipart(fields: [HTTPField], files: [HTTPFilePart])
    }

    /// The URL without the query parameters below (it may carry a query of its own).
    public var url: URL
    /// Appended to `url` in order, percent-encoded.
    public var query: [HTTPField]
    /// Extra request headers. An `Accept-Encoding` header is handed to libcurl, which then also
    /// decodes the compressed response.
    public var headers: [HTTPField]
    public var body: Body
    /// Overrides the client's timeouts for this request.
    public var timeouts: HTTPTimeouts?

    public init(url: URL, query: [HTTPField] = [], headers: [HTTPField] = [], body: Body = .none,
                timeouts: HTTPTimeouts? = nil) {
        self.url = url
        self.query = query
        self.headers = headers
        self.body = body
        self.timeouts = timeouts
    }

    public static func get(_ url: URL, query: [HTTPField] = [], headers: [HTTPField] = []) -> HTTPRequest {
        HTTPRequest(url: url, query: query, headers: headers)
    }

    public static func postForm(_ url: URL, fields: [HTTPField], headers: [HTTPField] = []) -> HTTPRequest {
        HTTPRequest(url: url, headers: headers, body: .form(fields))
    }

    public static func postMultipart(_ url: URL, fields: [HTTPField] = [], files: [HTTPFilePart],
                                     headers: [HTTPField] = []) -> HTTPRequest {
        HTTPRequest(url: url, headers: headers, body: .multipart(fields: fields, files: files))
    }

    public var method: Method { body == .none ? .get : .post }

    /// The URL actually requested, query parameters included.
    public var fullURL: String { url(encoding: \.formEncoded) }

    /// The URL with secret query values replaced by `<redacted>`: the only form that is logged.
    public var redactedURL: String { url(encoding: \.redactedFormEncoded) }

    private func url(encoding: KeyPath<HTTPField, String>) -> String {
        let base = url.absoluteString
        guard !query.isEmpty else { return base }
        let separator = base.contains("?") ? "&" : "?"
        return base + separator + query.map { $0[keyPath: encoding] }.joined(separator: "&")
    }
}
