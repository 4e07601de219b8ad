/// The outcome of one notification delivery attempt.
///
/// Open: a value Apple adds later decodes and keeps its raw value.
public struct SendAttemptResult: OpenEnumeration {
  public let rawValue: String

  public init(rawValue: String) {
    self.rawValue = rawValue
  }

  public static let success = Self(rawValue: "SUCCESS")
  public static let timedOut = Self(rawValue: "TIMED_OUT")
  public static let tlsIssue = Self(rawValue: "TLS_ISSUE")
  public static let circularRedirect = Self(rawValue: "CIRCULAR_REDIRECT")
  public static let noResponse = Self(rawValue: "NO_RESPONSE")
  public static let socketIssue = Self(rawValue: "SOCKET_ISSUE")
  public static let unsupportedCharset = Self(rawValue: "UNSUPPORTED_CHARSET")
  public static let invalidResponse = Self(rawValue: "INVALID_RESPONSE")
  public static let prematureClose = Self(rawValue: "PREMATURE_CLOSE")
  public static let unsuccessfulHTTPResponseCode = Self(rawValue: "UNSUCCESSFUL_HTTP_RESPONSE_CODE")
  public static let other = Self(rawValue: "OTHER")
  public static let sslIssue = Self(rawValue: "SSL_ISSUE")

  public static let knownValues: [Self] = [
    .success, .timedOut, .tlsIssue, .circularRedirect, .noResponse, .socketIssue,
    .unsupportedCharset, .invalidResponse, .prematureClose, .unsuccessfulHTTPResponseCode, .other,
    .sslIssue,
  ]
}
