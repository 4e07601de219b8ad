import AppStoreVerification
import Foundation
import HTTPTypes
import Hummingbird
import StoreLedger
import StoreLedgerCore

/// Every error the API answers, as `{"error": {"code", "message"}}` with a stable code. The
/// one place where failures become HTTP statuses. Messages never carry payloads, tokens or
/// keys.
public struct APIError: Error, HTTPResponseError, Sendable {
  public let status: HTTPResponse.Status
  public let code: String
  public let message: String
  /// The verifier's reason, for `verification_failed`.
  public let reason: String?
  /// The methods the path takes, for `method_not_allowed` (the `Allow` header).
  public var allow: [String]? = nil
  /// Seconds until a locked key or address may try again, for `key_locked` and
  /// `address_locked` (`Retry-After`).
  public var retryAfter: Int64? = nil

  public init(
    _ status: HTTPResponse.Status, _ code: String, _ message: String, reason: String? = nil
  ) {
    self.status = status
    self.code = code
    self.message = message
    self.reason = reason
  }

  /// Every code the API answers with, beyond those of ``LedgerError``: the OpenAPI document
  /// lists exactly these and the ledger's (a test holds the two together).
  static let ownCodes =
    [
      "unauthorized", "not_found", "invalid_body", "invalid_request", "invalid_payload",
      "unknown_app", "app_required", "method_not_allowed", "body_too_large", "http_error",
      "internal_error", "invalid_policy", "insufficient_scope", "unknown_filter", "key_locked",
      "address_locked",
    ] + MetricsError.Code.all.map(\.rawValue)

  /// A named key, or a client address, locked by repeated failures (``AuthenticationThrottle``).
  static func locked(_ kind: AuthenticationThrottle.Kind, retryAfter: Duration) -> APIError {
    let seconds = max(1, retryAfter.components.seconds + 1)
    var error =
      kind == .address
      ? APIError(
        .tooManyRequests, "address_locked",
        "too many requests from this address presented wrong API keys; it is locked for "
          + "\(seconds) s, every key included; check the keys your clients use (an operator "
          + "can see the lock in the server's log)")
      : APIError(
        .tooManyRequests, "key_locked",
        "this key was presented with wrong secrets too often and is locked for \(seconds) s; "
          + "check the key you use (an operator can see the lock in the server's log)")
    error.retryAfter = seconds
    return error
  }

  static let unauthorized = APIError(
    .unauthorized, "unauthorized", "a valid API key is required: Authorization: Bearer <key>")
  static let notFound = APIError(.notFound, "not_found", "no such endpoint")
  static func methodNotAllowed(_ allow: [String]) -> APIError {
    var error = APIError(
      .methodNotAllowed, "method_not_allowed",
      "this endpoint takes \(allow.joined(separator: ", ")) only")
    error.allow = allow
    return error
  }
  static func invalidBody(_ message: String) -> APIError {
    APIError(.badRequest, "invalid_body", message)
  }
  static func unknownApp(_ message: String) -> APIError {
    APIError(.notFound, "unknown_app", message)
  }
  static let appRequired = APIError(
    .badRequest, "app_required",
    "this server serves several apps: ask for one under /apps/{name}/v1/…")
  static func invalidRequest(_ message: String) -> APIError {
    APIError(.badRequest, "invalid_request", message)
  }

  /// The ledger's errors as HTTP, by the library's own mapping (`LedgerError.httpStatus`):
  /// signed data that does not verify is unauthorized (what is not shaped like a JWS is
  /// refused by the document's pattern, 400, before it gets here); what the state does not
  /// allow is 404 or 409.
  init(_ error: LedgerError) {
    let reason: String? =
      switch error.code {
      case .verificationFailed: error.verificationCode
      case .appleRefused, .appleUnavailable: error.appleErrorCode.map(String.init)
      default: nil
      }
    self.init(
      HTTPResponse.Status(code: error.httpStatus), error.code.rawValue, error.message,
      reason: reason)
  }

  /// Hummingbird's own errors (body too large, no route, bad method).
  init(_ error: HTTPError) {
    switch error.status {
    case .contentTooLarge:
      self.init(.contentTooLarge, "body_too_large", "the request body is too large")
    case .notFound: self = .notFound
    case .methodNotAllowed:
      self.init(.methodNotAllowed, "method_not_allowed", "this endpoint does not take that method")
    default:
      self.init(error.status, "http_error", error.status.reasonPhrase)
    }
  }

  /// Any error, mapped.
  static func from(_ error: any Error) -> APIError {
    switch error {
    case let error as APIError: error
    case let error as LedgerError: APIError(error)
    // A metrics question whose parameters each fit the document but that cannot be answered
    // together: the caller's to fix (a parameter unlike the document is 400 before this).
    case let error as MetricsError:
      APIError(.unprocessableContent, error.code.rawValue, error.message)
    case let error as HTTPError: APIError(error)
    case let error as any HTTPResponseError where error.status == .contentTooLarge:
      APIError(HTTPError(.contentTooLarge))
    default: APIError(.internalServerError, "internal_error", "the server failed")
    }
  }

  private struct Body: Encodable {
    struct Detail: Encodable {
      let code: String
      let message: String
      let reason: String?
    }
    let error: Detail
  }

  public func response(from request: Request, context: some RequestContext) throws -> Response {
    let body = try JSONEncoder().encode(
      Body(error: .init(code: code, message: message, reason: reason)))
    var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
    if status == .serviceUnavailable { headers[.retryAfter] = "5" }
    if let retryAfter { headers[.retryAfter] = "\(retryAfter)" }
    if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
    if let allow { headers[.allow] = allow.joined(separator: ", ") }
    return Response(
      status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
  }
}
