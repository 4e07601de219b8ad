import Foundation
import HTTPTypes
import Hummingbird

/// Counts every request by app, method, route pattern and final status, and turns every error
/// into its JSON answer (``APIError``): the one place failures become responses.
struct ErrorAndMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
  let metrics: ServerMetrics
  /// The app a request counts under unless its route names another (one app: that app).
  let app: String

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    let routed = RequestApp()
    let response: Response
    do {
      response = try await RequestApp.$current.withValue(routed) {
        try await next(request, context)
      }
    } catch let error as HTTPError where error.status == .notFound {
      // No route for this method: a documented path answers which methods it takes.
      let allowed = DocumentedRoutes.shared.methods(for: request.uri.path)
      let answer =
        allowed.isEmpty || allowed.contains(request.method.rawValue)
        ? APIError.from(error) : APIError.methodNotAllowed(allowed)
      response = try answer.response(from: request, context: context)
    } catch {
      response = try APIError.from(error).response(from: request, context: context)
    }
    metrics.request(
      app: routed.name ?? app, method: request.method.rawValue,
      route: context.endpointPath ?? "unmatched",
      status: response.status.code)
    return response
  }
}
