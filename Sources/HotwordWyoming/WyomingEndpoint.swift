/// Where a Wyoming server listens: `tcp://HOST:PORT` or `unix:///path/to/socket`, as the
/// reference's `--uri`.
public enum WyomingEndpoint: Sendable, Hashable, CustomStringConvertible {
    case tcp(host: String, port: Int)
    case unix(path: String)

    /// Home Assistant's customary port for wake-word services.
    public static let defaultPort = 10400

    public init(parsing text: String) throws(WyomingEndpointError) {
        if text.hasPrefix("unix://") {
            let path = String(text.dropFirst("unix://".count))
            guard path.hasPrefix("/") else { throw .invalid(text, "a unix:// URI needs an absolute path, as unix:///run/hotword.sock") }
            self = .unix(path: path)
            return
        }
        guard text.hasPrefix("tcp://") else { throw .invalid(text, "expected tcp://HOST:PORT or unix:///PATH") }
        let address = text.dropFirst("tcp://".count)
        // [::1]:10400 for IPv6, host:10400 otherwise.
        let host: Substring, portText: Substring
        if address.hasPrefix("["), let close = address.firstIndex(of: "]") {
            host = address[address.index(after: address.startIndex)..<close]
            let rest = address[address.index(after: close)...]
            guard rest.hasPrefix(":") else { throw .invalid(text, "expected a port after the IPv6 address") }
            portText = rest.dropFirst()
        } else {
            guard let colon = address.lastIndex(of: ":") else { throw .invalid(text, "expected a port, as tcp://0.0.0.0:\(Self.defaultPort)") }
            host = address[..<colon]
            portText = address[address.index(after: colon)...]
        }
        guard !host.isEmpty else { throw .invalid(text, "expected a host, as 0.0.0.0 (all interfaces) or 127.0.0.1") }
        guard let port = Int(portText), (0...65_535).contains(port) else { throw .invalid(text, "port '\(portText)' is not 0…65535") }
        self = .tcp(host: String(host), port: port)
    }

    public var description: String {
        switch self {
        case .tcp(let host, let port): host.contains(":") ? "tcp://[\(host)]:\(port)" : "tcp://\(host):\(port)"
        case .unix(let path): "unix://\(path)"
        }
    }
}

public enum WyomingEndpointError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalid(String, String)

    public var description: String {
        switch self {
        case .invalid(let text, let reason): "'\(text)' is not a Wyoming address: \(reason)"
        }
    }
}
