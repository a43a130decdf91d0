import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPTransportFailure {
    /// Classifies an error from `URLSession` (a `URLError`): timeouts, refused and lost
    /// connections, DNS, TLS; anything else becomes ``other(_:)`` with its description.
    public init(_ error: any Error) {
        guard let urlError = error as? URLError else {
            self = .other(String(describing: error))
            return
        }
        switch urlError.code {
        case .timedOut: self = .timedOut
        case .cannotConnectToHost: self = .connectionRefused
        case .networkConnectionLost: self = .connectionLost
        case .cannotFindHost, .dnsLookupFailed: self = .hostNotFound
        case .notConnectedToInternet: self = .notConnected
        case .cancelled: self = .cancelled
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected,
             .clientCertificateRequired:
            self = .secureConnectionFailed("URLError \(urlError.code.rawValue)")
        case .badServerResponse, .cannotParseResponse, .zeroByteResource, .cannotDecodeContentData,
             .cannotDecodeRawData:
            self = .badResponse("URLError \(urlError.code.rawValue)")
        default:
            self = .other("URLError \(urlError.code.rawValue): \(urlError.localizedDescription)")
        }
    }
}
