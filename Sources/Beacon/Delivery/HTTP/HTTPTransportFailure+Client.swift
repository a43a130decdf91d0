import AsyncHTTPClient
import Glibc
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

extension HTTPTransportFailure {
    /// Classifies an error thrown by the HTTP client (AsyncHTTPClient over SwiftNIO):
    /// timeouts, refused and lost connections, DNS, TLS, malformed responses; anything
    /// else becomes ``other(_:)`` with its description.
    public init(_ error: any Error) {
        switch error {
        case let error as HTTPClientError:
            self = Self(clientError: error)
        case let error as NIOConnectionError:
            // Every address of the host failed; DNS failures name no address at all.
            if error.dnsAError != nil || error.dnsAAAAError != nil, error.connectionErrors.isEmpty {
                self = .hostNotFound
            } else if let first = error.connectionErrors.first {
                self = Self(first.error)
            } else {
                self = .other(String(describing: error))
            }
        case let error as IOError:
            self = Self(errno: error.errnoCode, description: String(describing: error))
        case let error as ChannelError:
            switch error {
            case .connectTimeout: self = .timedOut
            case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed: self = .connectionLost
            default: self = .other(String(describing: error))
            }
        case is SocketAddressError:
            self = .hostNotFound
        case is HTTPParserError:
            self = .badResponse(String(describing: error))
        case is NIOSSLError, is BoringSSLError, is NIOSSLExtraError:
            self = .secureConnectionFailed(String(describing: error))
        case is CancellationError:
            self = .cancelled
        default:
            self = .other(String(describing: error))
        }
    }

    private init(clientError error: HTTPClientError) {
        switch error {
        case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .getConnectionFromPoolTimeout:
            self = .timedOut
        case .cancelled, .alreadyShutdown:
            self = .cancelled
        case .remoteConnectionClosed:
            self = .connectionLost
        case .tlsHandshakeTimeout:
            self = .secureConnectionFailed("TLS handshake timed out")
        case .bodyLengthMismatch, .contentLengthMissing, .identityCodingIncorrectlyPresent:
            self = .badResponse(error.description)
        default:
            self = .other(error.description)
        }
    }

    private init(errno code: Int32, description: String) {
        switch code {
        case ECONNREFUSED: self = .connectionRefused
        case ECONNRESET, EPIPE, ECONNABORTED: self = .connectionLost
        case ETIMEDOUT: self = .timedOut
        case ENETUNREACH, EHOSTUNREACH, ENETDOWN: self = .notConnected
        default: self = .other(description)
        }
    }
}
