import Foundation
import Hummingbird

/// A server of several apps: `/apps/{name}/…` must name a configured app, and `/v1/…` (other
/// than the shared webhook and transaction intake, which route by bundle id) must name one.
struct AppRoutingMiddleware<Context: RequestContext>: RouterMiddleware {
  let apps: Set<String>
  /// Whether the unprefixed `/v1/…` routes are one app's (a file listing one app).
  let oneApp: Bool

  init(apps: [String]) {
    self.apps = Set(apps)
    oneApp = apps.count == 1
  }

  static var sharedPaths: Set<String> {
    [IngestController.webhookPath, IngestController.transactionsPath]
  }

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    let segments = request.uri.path.split(separator: "/", omittingEmptySubsequences: false)
    if segments.count > 2, segments[1] == "apps" {
      let name = String(segments[2])
      guard apps.contains(name) else {
        throw APIError.unknownApp("this server serves no app of that name")
      }
      RequestApp.current?.set(name)
    } else if segments.count > 1, segments[1] == "v1" {
      if oneApp, let app = apps.first {
        RequestApp.current?.set(app)
      } else if !Self.sharedPaths.contains(request.uri.path) {
        throw APIError.appRequired
      }
    }
    return try await next(request, context)
  }
}
