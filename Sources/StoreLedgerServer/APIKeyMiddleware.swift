import Foundation
import HTTPTypes
import Hummingbird
import StoreLedger
import StoreLedgerCore

/// Requires `Authorization: Bearer <key>` with a key that holds the request's scope: `read`
/// for reads (`GET`, and the refund policy's dry run), `write` for everything that records or
/// asks Apple to act, `admin` for an erasure. An unknown key is 401; a known key without the
/// scope is 403 `insufficient_scope`, before the body is read. Wrong keys are counted by key
/// and by client address (``AuthenticationThrottle``): a locked one is 429.
struct APIKeyMiddleware<Context: RemoteAddressRequestContext>: RouterMiddleware {
  let ring: APIKeyRing

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    guard let header = request.headers[.authorization], header.hasPrefix("Bearer "),
      let grant = try await ring.grant(
        for: String(header.dropFirst("Bearer ".count)), peer: context.remoteAddress,
        headers: request.headers)
    else { throw APIError.unauthorized }
    let needed = Self.scope(of: request.method, route: context.endpointPath ?? request.uri.path)
    guard grant.allows(needed) else {
      throw APIError(
        .forbidden, "insufficient_scope",
        "the key \(grant.name) has \(grant.scopes.sorted().map(\.rawValue).joined(separator: ", "))"
          + "; this request needs \(needed.rawValue): use a key with that scope "
          + "(storeledger keys create --scopes \(needed.rawValue),…)")
    }
    return try await APIKeyRequest.$grant.withValue(grant) { try await next(request, context) }
  }

  /// The scope a request needs, decided by the route the router matched (its template, like
  /// `/v1/accounts/{token}/erasure`), never by the spelling of the path: the router also
  /// matches `/v1//relays` and `/v1/relays/`, and those must need what `/v1/relays` needs.
  /// The table is the OpenAPI document's security requirements; a route it does not list
  /// needs `admin` (refused unless the key may do everything), and an OPTIONS `read`.
  static func scope(of method: HTTPRequest.Method, route: String) -> APIKeyScope {
    if method == .options { return .read }
    return DocumentedRoutes.shared.scope(method.rawValue, template: route) ?? .admin
  }
}

/// The key of the request being handled: what a grant records as who gave it.
enum APIKeyRequest {
  @TaskLocal static var grant: APIKeyGrant?
}
