import StoreLedgerCore

/// A failed App Store Server API call: a stable `code`, Apple's `errorCode` when it sent one,
/// the HTTP status. Descriptions never carry response bodies or tokens.
public struct AppStoreAPIError: Error, Sendable, Hashable, CustomStringConvertible {
  public struct Code: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Apple answered with an error body; see ``apiErrorCode``.
    public static let apiError = Code(rawValue: "api_error")
    /// 401: the bearer token was refused (wrong key, issuer, bundle or expired).
    public static let unauthorized = Code(rawValue: "unauthorized")
    /// 429 still, after every retry the policy allows.
    public static let rateLimited = Code(rawValue: "rate_limited")
    /// No answer within the request timeout.
    public static let timeout = Code(rawValue: "timeout")
    /// The connection failed.
    public static let transport = Code(rawValue: "transport")
    /// A 2xx body that is not the documented JSON.
    public static let invalidResponse = Code(rawValue: "invalid_response")
    /// Signed data in the answer did not verify; nothing of it is returned.
    public static let unverifiedData = Code(rawValue: "unverified_data")
  }

  public let code: Code
  public let httpStatus: Int?
  public let apiErrorCode: APIErrorCode?
  public let message: String
  /// How long Apple asked to wait (`Retry-After` of a 429), when it said.
  public private(set) var retryAfter: Duration?

  public init(
    _ code: Code, httpStatus: Int? = nil, apiErrorCode: APIErrorCode? = nil, _ message: String
  ) {
    self.code = code
    self.httpStatus = httpStatus
    self.apiErrorCode = apiErrorCode
    self.message = message
  }

  func retrying(after wait: Duration) -> AppStoreAPIError {
    var error = self
    error.retryAfter = wait
    return error
  }

  /// Worth trying again: rate limits, 5xx, Apple's retryable codes, timeouts, transport.
  public var isRetryable: Bool {
    switch code {
    case .rateLimited, .timeout, .transport: true
    case .apiError: apiErrorCode?.isRetryable ?? (httpStatus ?? 0 >= 500)
    default: false
    }
  }

  public var description: String {
    var text = code.rawValue
    if let httpStatus { text += " (HTTP \(httpStatus))" }
    if let apiErrorCode { text += " errorCode \(apiErrorCode.rawValue)" }
    return text + ": " + message
  }
}
