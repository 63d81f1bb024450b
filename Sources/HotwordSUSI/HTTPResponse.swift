import Foundation

/// What the server sent back, whatever the status.
public struct HTTPResponse: Sendable, Equatable {
    /// The requested URL with secrets redacted (see `HTTPRequest.redactedURL`).
    public var url: String
    public var status: Int
    /// Headers of the final response (after redirects), in order; names as the server sent them.
    public var headers: [HTTPField]
    /// The body, already decoded if it was sent compressed.
    public var body: Data

    public init(url: String, status: Int, headers: [HTTPField], body: Data) {
        self.url = url
        self.status = status
        self.headers = headers
        self.body = body
    }

    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The first header with this name, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The body as text (invalid UTF-8 replaced).
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// A one-line description of the body for error messages: the `<title>` of an HTML page,
    /// otherwise its first characters with whitespace collapsed.
    public var bodySummary: String { HTTPResponse.summary(of: body) }

    /// How much of a body a summary looks at: a page's title comes early, and a huge body must
    /// not cost seconds of CPU to describe.
    static let summaryBytes = 4096

    static func summary(of body: Data) -> String {
        let text = String(decoding: body.prefix(summaryBytes), as: UTF8.self)
        let title = HTTPResponse.htmlTitle(in: text) ?? ""
        let shown = title.isEmpty ? text.split(whereSeparator: \.isWhitespace).joined(separator: " ") : title
        // Shown on a terminal: the server's escape sequences and bells go.
        let printable = String(String.UnicodeScalarView(shown.unicodeScalars.filter { $0.properties.generalCategory != .control }))
        let limit = 120
        return printable.count > limit ? String(printable.prefix(limit)) + "…" : printable
    }

    /// Throws `HTTPError.status` unless the status is 2xx.
    public func requireSuccess() throws(HTTPError) -> HTTPResponse {
        guard isSuccess else { throw HTTPError.status(url: url, status: status, body: bodySummary) }
        return self
    }

    private static func htmlTitle(in text: String) -> String? {
        guard let open = text.range(of: "<title>", options: .caseInsensitive),
              let close = text.range(of: "</title>", options: .caseInsensitive, range: open.upperBound..<text.endIndex)
        else { return nil }
        return text[open.upperBound..<close.lowerBound]
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
