import AppStoreVerification
import Foundation
import HTTPTypes
import Hummingbird
import StoreLedger

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
  static let ownCodes = [
    "unauthorized", "not_found", "invalid_body", "invalid_request", "invalid_payload",
    "unknown_app", "app_required", "method_not_allowed", "body_too_large", "http_error",
    "internal_error", "invalid_policy",
  ]

  /// Apple's 400-class errors that say what the purchase is, not what the request got wrong:
  /// family-shared, not the original transaction, not a group with developer-hosted seats,
  /// no seat left, the claim released.
  static let refusedForTheState: Set<Int64> = [
    4_000_185, 4_000_187, 4_000_950, 4_000_951, 4_000_952,
  ]

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

  /// The ledger's refusals as HTTP: signed data that does not verify (signature, chain,
  /// identity, environment) is unauthorized; what the state does not allow is 404 or 409.
  init(_ error: LedgerError) {
    switch error.code {
    case .verificationFailed:
      // What is not shaped like a JWS is refused by the document's pattern (400) before it
      // gets here; what is shaped like one and does not decode or verify is unauthorized.
      self.init(
        .unauthorized, "verification_failed", error.message, reason: error.verificationCode)
    case .invalidPayload: self.init(.badRequest, "invalid_payload", error.message)
    case .invalidRequest: self.init(.badRequest, "invalid_request", error.message)
    case .insufficientBalance: self.init(.conflict, "insufficient_balance", error.message)
    case .databaseUnavailable: self.init(.serviceUnavailable, "database_unavailable", error.message)
    case .databasePermissionDenied:
      // The deployment's roles are wrong, not the request: unavailable until an operator fixes it.
      self.init(.serviceUnavailable, "database_permission_denied", error.message)
    case .notFound: self.init(.notFound, "not_found", error.message)
    case .conflict: self.init(.conflict, "conflict", error.message)
    case .appleRefused:
      // As Apple's own status says: 404 for what Apple does not know, 409 for what the
      // purchase's state does not allow, 422 for what Apple found invalid.
      let code = error.appleErrorCode ?? 0
      let status: HTTPResponse.Status =
        switch code {
        case 4_040_000..<4_050_000: .notFound
        case 4_030_000..<4_040_000: .conflict
        case _ where Self.refusedForTheState.contains(code): .conflict
        default: .unprocessableContent
        }
      self.init(
        status, "apple_refused", error.message, reason: error.appleErrorCode.map(String.init))
    case .appleUnavailable:
      self.init(
        .badGateway, "apple_unavailable", error.message,
        reason: error.appleErrorCode.map(String.init))
    case .notConfigured: self.init(.notImplemented, "not_configured", error.message)
    // A position the feed has not reached: the caller follows another feed (a restored
    // database), not a malformed request.
    case .positionBeyondFeed: self.init(.conflict, "position_beyond_feed", error.message)
    case .notDeveloperHosted: self.init(.conflict, "not_developer_hosted", error.message)
    case .subscriptionNotActive: self.init(.conflict, "subscription_not_active", error.message)
    case .purchaseHeldByAnotherAccount:
      self.init(.conflict, "purchase_held_by_another_account", error.message)
    case .idempotencyKeyReused:
      self.init(.unprocessableContent, "idempotency_key_reused", error.message)
    default: self.init(.internalServerError, error.code.rawValue, error.message)
    }
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
    if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
    if let allow { headers[.allow] = allow.joined(separator: ", ") }
    return Response(
      status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
  }
}
