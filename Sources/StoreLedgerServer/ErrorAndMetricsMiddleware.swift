import Foundation
import HTTPTypes
import Hummingbird

/// Counts every request by method, route pattern and final status, and turns every error
/// into its JSON answer (``APIError``): the one place failures become responses.
struct ErrorAndMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
  let metrics: ServerMetrics

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    let response: Response
    do {
      response = try await next(request, context)
    } catch {
      response = try APIError.from(error).response(from: request, context: context)
    }
    metrics.request(
      method: request.method.rawValue, route: context.endpointPath ?? "unmatched",
      status: response.status.code)
    return response
  }
}
