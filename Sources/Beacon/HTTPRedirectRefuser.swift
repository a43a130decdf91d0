import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Makes `URLSession` hand 3xx responses back instead of following them: a redirected
/// POST may turn into a GET or lose its body, and a moved collector is a configuration
/// problem to report (``HTTPResponseClassifier`` maps 3xx to `.retryable`).
final class HTTPRedirectRefuser: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
