import Foundation
import HTTPTypes
import Hummingbird

/// Requires `Authorization: Bearer <key>` with one of the configured keys. Keys are compared
/// in constant time and never logged.
struct APIKeyMiddleware<Context: RequestContext>: RouterMiddleware {
  let keys: Set<String>

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    guard let header = request.headers[.authorization], header.hasPrefix("Bearer "),
      Self.isKnown(Array(header.dropFirst("Bearer ".count).utf8), among: keys)
    else { throw APIError.unauthorized }
    return try await next(request, context)
  }

  /// Whether `presented` is one of `keys`, compared in constant time per key.
  static func isKnown(_ presented: [UInt8], among keys: Set<String>) -> Bool {
    var known = false
    for key in keys {
      let expected = Array(key.utf8)
      guard expected.count == presented.count else { continue }
      var difference: UInt8 = 0
      for (left, right) in zip(expected, presented) { difference |= left ^ right }
      if difference == 0 { known = true }
    }
    return known
  }
}
