import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// One POST and what came of it: a response, or the transport failure that ended it.
enum HTTPExchange: Sendable, Hashable {
    case response(status: Int, headers: [String: String], body: [UInt8])
    case failed(HTTPTransportFailure)

    /// Runs `request` with `body`, giving up after `deadline` with `.timedOut`.
    ///
    /// The deadline is a sleeping child task racing the upload; whichever ends first wins
    /// and the other is cancelled, so the wait is bounded and nothing blocks a thread.
    static func perform(_ request: URLRequest, body: Data, session: URLSession, deadline: Duration) async -> HTTPExchange {
        await withTaskGroup(of: HTTPExchange?.self) { group in
            group.addTask { await upload(request, body: body, session: session) }
            group.addTask {
                do {
                    try await Task.sleep(for: deadline)
                } catch {
                    // Cancelled: the upload finished first (or the caller cancelled, which
                    // the upload reports as `.cancelled`). This child has nothing to say.
                    return nil
                }
                return .failed(.timedOut)
            }
            var outcome = HTTPExchange.failed(.cancelled)
            for await result in group {
                if let result {
                    outcome = result
                    break
                }
            }
            group.cancelAll()
            return outcome
        }
    }

    /// One upload task, wrapped in a continuation. Cancelling the Swift task cancels the
    /// upload and resumes at once: URLSession on Linux does not always call the completion
    /// handler after `cancel()` (a reset connection), and a send must never hang.
    private static func upload(_ request: URLRequest, body: Data, session: URLSession) async -> HTTPExchange {
        let cell = UploadCell()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<HTTPExchange, Never>) in
                let task = session.uploadTask(with: request, from: body) { data, response, error in
                    cell.finish(with: HTTPExchange(data: data, response: response, error: error))
                }
                if cell.start(task, continuation: continuation) { task.resume() }
            }
        } onCancel: {
            cell.cancel()
        }
    }

    /// Builds the exchange from what `URLSession` handed to the completion handler.
    init(data: Data?, response: URLResponse?, error: (any Error)?) {
        if let error {
            self = .failed(HTTPTransportFailure(error))
        } else if let http = response as? HTTPURLResponse {
            var headers: [String: String] = [:]
            for case (let name as String, let value as String) in http.allHeaderFields { headers[name] = value }
            self = .response(status: http.statusCode, headers: headers, body: data.map { [UInt8]($0) } ?? [])
        } else {
            self = .failed(.badResponse("no HTTP response"))
        }
    }
}

/// The upload task of one exchange and its continuation, shared by the completion
/// handler and the cancellation handler; whichever comes first resumes, exactly once.
private final class UploadCell: Sendable {
    private enum State: @unchecked Sendable {
        // @unchecked: URLSessionTask is thread-safe (its methods lock internally) but is
        // not declared Sendable on every platform; it is only touched under the mutex.
        case idle
        case running(URLSessionTask, CheckedContinuation<HTTPExchange, Never>)
        case done
    }

    private let state = Mutex(State.idle)

    /// Records the task; returns `false` (and resumes as cancelled) if cancelled already.
    func start(_ task: URLSessionTask, continuation: CheckedContinuation<HTTPExchange, Never>) -> Bool {
        let started = state.withLock { state -> Bool in
            guard case .idle = state else { return false }
            state = .running(task, continuation)
            return true
        }
        if !started { continuation.resume(returning: .failed(.cancelled)) }
        return started
    }

    /// The completion handler's result.
    func finish(with exchange: HTTPExchange) {
        let continuation = state.withLock { state -> CheckedContinuation<HTTPExchange, Never>? in
            guard case .running(_, let continuation) = state else { return nil }
            state = .done
            return continuation
        }
        continuation?.resume(returning: exchange)
    }

    /// Cancels the upload and resumes as cancelled, unless it already finished.
    func cancel() {
        let running = state.withLock { state -> (URLSessionTask, CheckedContinuation<HTTPExchange, Never>)? in
            switch state {
            case .running(let task, let continuation):
                state = .done
                return (task, continuation)
            case .idle:
                state = .done
                return nil
            case .done:
                return nil
            }
        }
        guard let (task, continuation) = running else { return }
        task.cancel()
        continuation.resume(returning: .failed(.cancelled))
    }
}
