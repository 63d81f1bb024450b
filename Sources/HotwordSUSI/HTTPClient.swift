import Foundation
import Logging

/// A small HTTP client over libcurl.
///
/// Each request gets its own libcurl easy handle on its own thread, so a client value is freely
/// shareable and a slow request never blocks Swift's cooperative thread pool. The price is a
/// fresh connection (and TLS handshake) per request, which is negligible next to speech at the
/// rate a voice assistant talks to a server. Cancelling the calling task aborts the transfer
/// within about a second (libcurl's progress-callback interval).
///
/// Only redacted URLs are logged (see `HTTPField.isSecret`); headers and bodies never are.
public struct HTTPClient: Sendable {
    public var timeouts: HTTPTimeouts
    private let logger: Logger

    /// The most a body kept in memory may hold once decoded (`send(_:)`; a body handed to a sink
    /// is the sink's to bound). SUSI's answers are a few KB; this stops an endless or
    /// compressed-bomb body (256 MiB from 255 KB of gzip) at 8 MiB.
    public static let maximumBodyBytes = 8 << 20

    public init(timeouts: HTTPTimeouts = .standard, logger: Logger = Logger(label: "hotword.http")) {
        self.timeouts = timeouts
        self.logger = logger
    }

    /// Sends `request` once. Any status is a response; only transport failures throw.
    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        try await perform(request, bodySink: nil)
    }

    /// Sends `request` once and hands the body to `sink` as it arrives, instead of keeping it
    /// (the response's body is empty): for downloads of any size.
    public func send(_ request: HTTPRequest, bodyInto sink: any HTTPBodySink) async throws(HTTPError) -> HTTPResponse {
        try await perform(request, bodySink: sink)
    }

    private func perform(_ request: HTTPRequest, bodySink: (any HTTPBodySink)?) async throws(HTTPError) -> HTTPResponse {
        let cancellation = HTTPCancellationFlag()
        let transfer = HTTPCurlTransfer(request: request, timeouts: request.timeouts ?? timeouts,
                                        cancellation: cancellation, bodySink: bodySink)
        let started = ContinuousClock.now
        let result: Result<HTTPResponse, HTTPError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let box = TransferBox(transfer)
                Thread { continuation.resume(returning: box.transfer.perform()) }.start()
            }
        } onCancel: {
            cancellation.cancel()
        }
        let elapsed = ContinuousClock.now - started
        switch result {
        case .success(let response):
            logger.debug("\(request.method.rawValue) \(request.redactedURL) → \(response.status), \(response.body.count) bytes in \(elapsed)")
        case .failure(let error):
            logger.debug("\(request.method.rawValue) \(request.redactedURL) failed after \(elapsed): \(error)")
        }
        return try result.get()
    }

    /// Sends `request`, repeating it as `policy` says after connection failures and 5xx answers.
    /// Returns the last outcome (possibly still a 5xx response) and how many attempts were made.
    public func send(_ request: HTTPRequest, retrying policy: HTTPRetryPolicy) async
        -> (result: Result<HTTPResponse, HTTPError>, attempts: Int)
    {
        var attempt = 1
        while true {
            let result: Result<HTTPResponse, HTTPError>
            do { result = .success(try await send(request)) } catch { result = .failure(error) }
            guard attempt < policy.attempts, policy.shouldRetry(result) else { return (result, attempt) }
            let delay = policy.delay(afterAttempt: attempt)
            let reason = switch result {
            case .success(let response): "HTTP \(response.status)"
            case .failure(let error): error.description
            }
            logger.warning("\(request.redactedURL): \(reason); attempt \(attempt + 1) of \(policy.attempts) in \(delay)")
            do { try await Task.sleep(for: delay) } catch { return (.failure(.cancelled(url: request.redactedURL)), attempt) }
            attempt += 1
        }
    }

    /// Hands the single-use, non-Sendable transfer to the thread that performs it.
    private final class TransferBox: @unchecked Sendable {  // @unchecked: only that one thread touches it
        let transfer: HTTPCurlTransfer
        init(_ transfer: HTTPCurlTransfer) { self.transfer = transfer }
    }
}

/// Takes a response body as it arrives (`HTTPClient.send(_:bodyInto:)`), on the transfer's own
/// thread. Returning false from either method stops the transfer with `HTTPError.receiverStopped`.
public protocol HTTPBodySink: AnyObject {
    /// The status and headers of the final response, once, before the first byte of its body
    /// (not called for a response without a body).
    func begin(status: Int, headers: [HTTPField]) -> Bool
    /// The next bytes of the body.
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool
}

/// When to repeat a request: after connection failures and 5xx answers, waiting `baseDelay`,
/// then twice as long before each further attempt. 4xx answers and total timeouts are final.
public struct HTTPRetryPolicy: Sendable, Equatable {
    /// All attempts, the first included (at least 1).
    public var attempts: Int
    /// The wait before the second attempt.
    public var baseDelay: Duration

    public init(attempts: Int, baseDelay: Duration) {
        self.attempts = max(1, attempts)
        self.baseDelay = baseDelay
    }

    public static let standard = HTTPRetryPolicy(attempts: 3, baseDelay: .milliseconds(500))
    public static let never = HTTPRetryPolicy(attempts: 1, baseDelay: .zero)

    /// The wait after the `attempt`-th (1-based) attempt failed.
    public func delay(afterAttempt attempt: Int) -> Duration {
        baseDelay * (1 << min(max(attempt - 1, 0), 16))
    }

    public func shouldRetry(_ result: Result<HTTPResponse, HTTPError>) -> Bool {
        switch result {
        case .success(let response): (500..<600).contains(response.status)
        case .failure(let error): error.isConnectionFailure
        }
    }
}
