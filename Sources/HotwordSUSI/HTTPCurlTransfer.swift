import CCrypto
import CCurl
import Foundation

/// libcurl's process-wide setup, done once (Swift runs a static initializer exactly once, even
/// when several threads get here together) before the first handle is created. OpenSSL first,
/// without its exit-time cleanup: a command that fails and exits while a transfer's thread is
/// still in libcrypto crashed there (`hotword data fetch` after a 404, once in CI).
private enum CurlGlobal {
    static let setup: CURLcode = {
        _ = hotword_openssl_init_without_exit_cleanup()
        return curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    }()
}

/// Set from any thread to make a running transfer stop at libcurl's next progress callback.
final class HTTPCancellationFlag: @unchecked Sendable {  // @unchecked: the flag is guarded by `lock`
    private let lock = NSLock()
    private var cancelled = false

    func cancel() { lock.withLock { cancelled = true } }
    var isCancelled: Bool { lock.withLock { cancelled } }
}

/// One request on its own libcurl easy handle, performed synchronously on the calling thread.
/// An instance is used once; the callbacks reach it through an unretained pointer that is only
/// valid while `perform()` runs.
final class HTTPCurlTransfer {
    private let request: HTTPRequest
    private let timeouts: HTTPTimeouts
    private let cancellation: HTTPCancellationFlag
    /// Where the body goes as it arrives; without one it is kept in `body`.
    private let bodySink: (any HTTPBodySink)?
    private var body = Data()
    private var headers: [HTTPField] = []
    /// The easy handle while `perform()` runs (the write callback asks it for the status).
    private var handle: UnsafeMutableRawPointer?
    private var sinkBegun = false
    /// Set when a body kept in memory passed `HTTPClient.maximumBodyBytes` and the transfer was stopped.
    private var bodyTooLarge = false

    init(request: HTTPRequest, timeouts: HTTPTimeouts, cancellation: HTTPCancellationFlag,
         bodySink: (any HTTPBodySink)? = nil) {
        self.request = request
        self.timeouts = timeouts
        self.cancellation = cancellation
        self.bodySink = bodySink
    }

    func perform() -> Result<HTTPResponse, HTTPError> {
        let url = request.redactedURL
        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return .failure(.invalidURL(url: url, reason: "only http and https URLs are supported"))
        }
        guard CurlGlobal.setup == CURLE_OK else {
            return .failure(.transferFailed(url: url, code: Int(CurlGlobal.setup.rawValue),
                                            detail: "curl_global_init failed"))
        }
        if cancellation.isCancelled { return .failure(.cancelled(url: url)) }
        // What the handle points to must outlive it: these are released after the cleanup below.
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        var mime: OpaquePointer?
        defer { curl_mime_free(mime) }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        defer { errorBuffer.deallocate() }
        guard let handle = curl_easy_init() else {
            return .failure(.transferFailed(url: url, code: -1, detail: "curl_easy_init failed"))
        }
        defer { curl_easy_cleanup(handle) }
        self.handle = handle
        defer { self.handle = nil }

        let context = Unmanaged.passUnretained(self).toOpaque()
        hotword_curl_set_string(handle, CURLOPT_URL, request.fullURL)
        hotword_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        hotword_curl_set_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        hotword_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 1)
        hotword_curl_set_long(handle, CURLOPT_MAXREDIRS, 5)
        // Signals cannot be used for timeouts in a multi-threaded process.
        hotword_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
        hotword_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, timeouts.connect.inMilliseconds)
        hotword_curl_set_long(handle, CURLOPT_TIMEOUT_MS, timeouts.total.inMilliseconds)
        if let stall = timeouts.stall {
            hotword_curl_set_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1)
            hotword_curl_set_long(handle, CURLOPT_LOW_SPEED_TIME, max(1, Int(stall.components.seconds)))
        }
        hotword_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)

        hotword_curl_set_pointer(handle, CURLOPT_WRITEDATA, context)
        hotword_curl_set_data_callback(handle, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            guard let data, let context else { return 0 }
            let transfer = Unmanaged<HTTPCurlTransfer>.fromOpaque(context).takeUnretainedValue()
            let byteCount = size * count
            return transfer.receivedBody(UnsafeRawBufferPointer(start: data, count: byteCount)) ? byteCount : 0
        }
        hotword_curl_set_pointer(handle, CURLOPT_HEADERDATA, context)
        hotword_curl_set_data_callback(handle, CURLOPT_HEADERFUNCTION) { data, size, count, context in
            guard let data, let context else { return 0 }
            let transfer = Unmanaged<HTTPCurlTransfer>.fromOpaque(context).takeUnretainedValue()
            let byteCount = size * count
            let line = data.withMemoryRebound(to: UInt8.self, capacity: byteCount) {
                String(decoding: UnsafeBufferPointer(start: $0, count: byteCount), as: UTF8.self)
            }
            transfer.receivedHeaderLine(line)
            return byteCount
        }
        hotword_curl_set_long(handle, CURLOPT_NOPROGRESS, 0)
        hotword_curl_set_pointer(handle, CURLOPT_XFERINFODATA, context)
        hotword_curl_set_progress_callback(handle) { context, _, _, _, _ in
            guard let context else { return 0 }
            let transfer = Unmanaged<HTTPCurlTransfer>.fromOpaque(context).takeUnretainedValue()
            return transfer.cancellation.isCancelled ? 1 : 0
        }

        var extraHeaders = request.headers
        if let index = extraHeaders.firstIndex(where: { $0.name.caseInsensitiveCompare("Accept-Encoding") == .orderedSame }) {
            // Given to libcurl as an option so that it also decodes the compressed body.
            hotword_curl_set_string(handle, CURLOPT_ACCEPT_ENCODING, extraHeaders.remove(at: index).value)
        }
        switch request.body {
        case .none:
            break
        case .form(let fields):
            let encoded = fields.map(\.formEncoded).joined(separator: "&")
            hotword_curl_set_long(handle, CURLOPT_POSTFIELDSIZE, encoded.utf8.count)
            hotword_curl_set_string(handle, CURLOPT_COPYPOSTFIELDS, encoded)
        case .multipart(let fields, let files):
            mime = curl_mime_init(handle)
            for field in fields {
                let part = curl_mime_addpart(mime)
                curl_mime_name(part, field.name)
                curl_mime_data(part, field.value, field.value.utf8.count)
            }
            for file in files {
                let part = curl_mime_addpart(mime)
                curl_mime_name(part, file.fieldName)
                curl_mime_filename(part, file.fileName)
                curl_mime_type(part, file.contentType)
                file.content.withUnsafeBytes { bytes in
                    _ = curl_mime_data(part, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count)
                }
            }
            hotword_curl_set_pointer(handle, CURLOPT_MIMEPOST, UnsafeMutableRawPointer(mime))
        }
        if request.method == .post {
            // Without this libcurl waits up to a second for "100 Continue" before sending a large body.
            extraHeaders.append(HTTPField("Expect", ""))
        }
        for header in extraHeaders {
            // "Name:" alone would remove a header, "Name;" sends it empty.
            let line = header.value.isEmpty ? "\(header.name);" : "\(header.name): \(header.value)"
            headerList = curl_slist_append(headerList, line)
        }
        hotword_curl_set_pointer(handle, CURLOPT_HTTPHEADER, headerList)

        let code = curl_easy_perform(handle)
        guard code == CURLE_OK else {
            let detail = errorBuffer.pointee == 0 ? String(cString: curl_easy_strerror(code)) : String(cString: errorBuffer)
            return .failure(error(for: code, detail: detail, handle: handle))
        }
        return .success(HTTPResponse(url: url, status: responseStatus(handle), headers: headers, body: body))
    }

    /// Keeps the body, or hands it to the sink (its head first); false stops the transfer.
    private func receivedBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let bodySink else {
            // libcurl hands over decoded bytes, so this one check stops compressed bombs too.
            guard body.count + bytes.count <= HTTPClient.maximumBodyBytes else {
                bodyTooLarge = true
                return false
            }
            body.append(contentsOf: bytes)
            return true
        }
        if !sinkBegun {
            sinkBegun = true
            guard bodySink.begin(status: handle.map(responseStatus) ?? 0, headers: headers) else { return false }
        }
        return bodySink.write(bytes)
    }

    private func responseStatus(_ handle: UnsafeMutableRawPointer) -> Int {
        var status = 0
        hotword_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return status
    }

    private func receivedHeaderLine(_ line: String) {
        if line.hasPrefix("HTTP/") {
            headers.removeAll()  // a new response starts (after a redirect or "100 Continue")
        } else if let colon = line.firstIndex(of: ":") {
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
            headers.append(HTTPField(name, value))
        }
    }

    private func error(for code: CURLcode, detail: String, handle: UnsafeMutableRawPointer) -> HTTPError {
        let url = request.redactedURL
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .couldNotResolve(url: url, detail: detail)
        case CURLE_COULDNT_CONNECT:
            return .couldNotConnect(url: url, detail: detail)
        case CURLE_OPERATION_TIMEDOUT:
            var connectMicroseconds: curl_off_t = 0, totalMicroseconds: curl_off_t = 0
            hotword_curl_get_off_t(handle, CURLINFO_CONNECT_TIME_T, &connectMicroseconds)
            hotword_curl_get_off_t(handle, CURLINFO_TOTAL_TIME_T, &totalMicroseconds)
            if connectMicroseconds == 0 {
                return .connectTimedOut(url: url, seconds: min(timeouts.connect, timeouts.total) / .seconds(1))
            }
            // Ended by the low-speed limit, well before the total: stalled.
            if let stall = timeouts.stall, Double(totalMicroseconds) / 1e6 < timeouts.total / .seconds(1) - 1 {
                return .stalled(url: url, seconds: Double(max(1, stall.components.seconds)))
            }
            return .timedOut(url: url, seconds: timeouts.total / .seconds(1))
        case CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_PARTIAL_FILE:
            return .connectionLost(url: url, detail: detail)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE:
            return .tls(url: url, detail: detail)
        case CURLE_ABORTED_BY_CALLBACK:
            return .cancelled(url: url)
        case CURLE_WRITE_ERROR where bodyTooLarge:
            return .bodyTooLarge(url: url, limit: HTTPClient.maximumBodyBytes)
        case CURLE_WRITE_ERROR where bodySink != nil:
            return .receiverStopped(url: url)
        case CURLE_UNSUPPORTED_PROTOCOL where responseStatus(handle) / 100 == 3:
            return .refusedRedirect(url: url, detail: detail)
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            return .invalidURL(url: url, reason: detail)
        default:
            return .transferFailed(url: url, code: Int(code.rawValue), detail: detail)
        }
    }
}
