import Foundation
import HTTPTypes
import Hummingbird
import StoreLedgerCore

/// Refuses a request the served OpenAPI document does not allow — its path parameters, query
/// parameters, headers and JSON body — with 400 (`invalid_request`, or `invalid_body` for the
/// body) naming the member and the rule, before any handler reads it. The document is the one
/// statement of the API's inputs: the server refuses exactly what it forbids.
struct RequestValidationMiddleware<Context: RequestContext>: RouterMiddleware {
  let routes: DocumentedRoutes
  /// The largest body read to check it (the server's limit; larger is 413, as the handlers
  /// answer it); receipts, which migrate a batch, may be up to 4 MiB.
  let bodyLimit: Int

  static var receiptsLimit: Int { 4 << 20 }

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    guard let (operation, pathValues) = routes.operation(request.method.rawValue, request.uri.path)
    else { return try await next(request, context) }
    let query = request.uri.queryParameters
    for parameter in operation.parameters {
      let raw: String? =
        switch parameter.location {
        case "path": pathValues[parameter.name]
        case "query": query.getAll(parameter.name).last.map { String($0) }
        case "header": HTTPField.Name(parameter.name).flatMap { request.headers[$0] }
        default: nil
        }
      guard let raw else {
        if parameter.required {
          throw APIError.invalidRequest("`\(parameter.name)` (\(parameter.location)) is required")
        }
        continue
      }
      let value = routes.schemas.value(raw, as: parameter.schema)
      if let problem = routes.schemas.violation(
        of: parameter.schema, by: value, at: "`\(parameter.name)`")
      {
        throw APIError.invalidRequest(problem)
      }
    }
    guard let body = operation.body else { return try await next(request, context) }
    var request = request
    let limit =
      request.uri.path.hasSuffix("/v1/receipts") ? max(bodyLimit, Self.receiptsLimit) : bodyLimit
    let buffer = try await request.collectBody(upTo: limit)
    if buffer.readableBytes == 0 {
      if body.required { throw APIError.invalidBody("this request needs a JSON body") }
      return try await next(request, context)
    }
    guard
      let value = try? JSONDecoder().decode(JSONValue.self, from: Data(buffer.readableBytesView))
    else { throw APIError.invalidBody("the body is not JSON") }
    if let problem = routes.schemas.violation(of: body.schema, by: value, at: "the body") {
      throw APIError.invalidBody(problem)
    }
    return try await next(request, context)
  }
}
