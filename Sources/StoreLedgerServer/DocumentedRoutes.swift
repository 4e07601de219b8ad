import Foundation
import StoreLedgerCore

/// The served OpenAPI document read as routes: which methods each documented path takes (a
/// request for a documented path with another method is answered 405 with `Allow`, not 404),
/// and what each operation's parameters and body may hold (``RequestValidationMiddleware``).
struct DocumentedRoutes: Sendable {
  struct Parameter: Sendable {
    let name: String
    /// `path`, `query` or `header`.
    let location: String
    let required: Bool
    let schema: JSONValue
  }

  struct Operation: Sendable {
    let method: String
    let parameters: [Parameter]
    /// The JSON body's schema, and whether a body is required.
    let body: (schema: JSONValue, required: Bool)?
    /// Each documented status (`"200"`, …) with its JSON body's schema (nil: not JSON).
    let responses: [String: JSONValue?]
    /// The scopes its security requirement names (`[{"apiKey": ["write"]}]`); empty for an
    /// operation that needs no key.
    let scopes: [String]
  }

  private struct Route: Sendable {
    let template: String
    /// A path's segments; nil where the document has a parameter (`{token}`).
    let segments: [String?]
    let operations: [Operation]
    /// The parameters' names, by segment (nil for a literal segment).
    let names: [String?]
    /// How many segments are parameters: a literal segment outranks a parameter.
    var parameterCount: Int { names.count { $0 != nil } }
  }
  private let routes: [Route]
  /// The routes by their number of segments, fewest parameters first: every request looks
  /// its route up here, so the lookup reads the path's segments in place.
  private let routesByLength: [Int: [Route]]
  /// Each operation's scope by `METHOD /path/{}` (parameters unnamed): the lookup every
  /// authenticated request makes.
  private let scopes: [String: APIKeyScope]
  let schemas: SchemaCheck

  static let shared = DocumentedRoutes(document: try? OpenAPIDocument.data())

  init(document: Data?) {
    let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]
    guard let document,
      case .object(let root)? = try? JSONDecoder().decode(JSONValue.self, from: document),
      case .object(let paths)? = root["paths"]
    else {
      routes = []
      routesByLength = [:]
      scopes = [:]
      schemas = SchemaCheck(components: [:])
      return
    }
    var components: [String: JSONValue] = [:]
    var sharedParameters: [String: JSONValue] = [:]
    if case .object(let parts)? = root["components"] {
      if case .object(let found)? = parts["schemas"] { components = found }
      if case .object(let found)? = parts["parameters"] { sharedParameters = found }
    }
    schemas = SchemaCheck(components: components)
    routes = paths.compactMap { path, item in
      guard case .object(let item) = item else { return nil }
      let operations = methods.compactMap { method -> Operation? in
        guard case .object(let operation)? = item[method] else { return nil }
        return Self.operation(method.uppercased(), operation, shared: sharedParameters)
      }
      let segments = Self.segments(path)
      return Route(
        template: path, segments: segments.map { $0.hasPrefix("{") ? nil : $0 },
        operations: operations,
        names: segments.map { $0.hasPrefix("{") ? String($0.dropFirst().dropLast()) : nil })
    }
    routesByLength = Dictionary(grouping: routes, by: \.segments.count).mapValues { routes in
      routes.sorted { ($0.parameterCount, $0.template) < ($1.parameterCount, $1.template) }
    }
    var scopes: [String: APIKeyScope] = [:]
    for route in routes {
      for operation in route.operations {
        guard let scope = operation.scopes.compactMap(APIKeyScope.init(rawValue:)).max() else {
          continue
        }
        scopes[Self.scopeKey(operation.method, route.segments)] = scope
      }
    }
    self.scopes = scopes
  }

  private static func scopeKey(_ method: String, _ segments: [String?]) -> String {
    method + " /" + segments.map { $0 ?? "{}" }.joined(separator: "/")
  }

  private static func operation(
    _ method: String, _ operation: [String: JSONValue], shared: [String: JSONValue]
  ) -> Operation {
    var parameters: [Parameter] = []
    if case .array(let listed)? = operation["parameters"] {
      for entry in listed {
        guard case .object(var parameter) = entry else { continue }
        if case .string(let reference)? = parameter["$ref"],
          case .object(let found)? = shared[String(reference.split(separator: "/").last ?? "")]
        {
          parameter = found
        }
        guard case .string(let name)? = parameter["name"],
          case .string(let location)? = parameter["in"]
        else { continue }
        parameters.append(
          Parameter(
            name: name, location: location, required: parameter["required"] == .bool(true),
            schema: parameter["schema"] ?? .object([:])))
      }
    }
    var body: (JSONValue, Bool)?
    if case .object(let requestBody)? = operation["requestBody"],
      case .object(let content)? = requestBody["content"],
      case .object(let json)? = content["application/json"], let schema = json["schema"]
    {
      body = (schema, requestBody["required"] == .bool(true))
    }
    var responses: [String: JSONValue?] = [:]
    if case .object(let listed)? = operation["responses"] {
      for (status, response) in listed {
        guard case .object(let response) = response else { continue }
        if case .object(let content)? = response["content"],
          case .object(let json)? = content["application/json"]
        {
          responses[status] = json["schema"]
        } else {
          responses[status] = .some(nil)
        }
      }
    }
    var scopes: [String] = []
    if case .array(let requirements)? = operation["security"] {
      for case .object(let requirement) in requirements {
        for case .array(let roles) in requirement.values {
          for case .string(let role) in roles { scopes.append(role) }
        }
      }
    }
    return Operation(
      method: method, parameters: parameters, body: body, responses: responses, scopes: scopes)
  }

  /// The scope a key needs for `method` on the route whose template the router matched
  /// (`/v1/accounts/{token}/erasure`, under `/apps/{app}` or not): the one table of route →
  /// scope is the document's security requirements. Nil for a route the document does not
  /// list or lists without a scope; a HEAD needs what its GET needs.
  func scope(_ method: String, template: String) -> APIKeyScope? {
    var segments: [String?] = Self.segments(template).map { $0.hasPrefix("{") ? nil : $0 }
    if segments.count > 2, segments[0] == "apps", segments[1] == nil { segments.removeFirst(2) }
    return scopes[Self.scopeKey(method == "HEAD" ? "GET" : method, segments)]
  }

  /// The routes matching `path` (an app's prefix, `/apps/NAME`, removed), a literal segment
  /// outranking a parameter as the router decides (`/dry-run` before `/{id}`).
  private func matching(_ path: String) -> (route: Route, values: [String: String])? {
    let bare = path.utf8.firstIndex(of: UInt8(ascii: "?")).map { path[..<$0] } ?? path[...]
    var segments = bare.split(separator: "/", omittingEmptySubsequences: true)
    if segments.count > 2, segments[0] == "apps" { segments.removeFirst(2) }
    guard
      let best = routesByLength[segments.count]?.first(where: { route in
        zip(route.segments, segments).allSatisfy { $0 == nil || $0! == $1 }
      })
    else { return nil }
    var values: [String: String] = [:]
    for (name, value) in zip(best.names, segments) {
      guard let name else { continue }
      let text = String(value)
      values[name] = text.removingPercentEncoding ?? text
    }
    return (best, values)
  }

  /// The methods the document lists for `path`; empty when it documents no such path.
  func methods(for path: String) -> [String] {
    (matching(path)?.route.operations.map(\.method) ?? []).sorted()
  }

  /// The documented operation for `method` and `path`, with the path's parameter values.
  func operation(_ method: String, _ path: String) -> (Operation, [String: String])? {
    guard let (route, values) = matching(path),
      let operation = route.operations.first(where: { $0.method == method })
    else { return nil }
    return (operation, values)
  }

  /// Every documented operation, as `METHOD /path/{parameter}`.
  var documented: [String] {
    routes.flatMap { route in route.operations.map { "\($0.method) \(route.template)" } }.sorted()
  }

  private static func segments(_ path: String) -> [String] {
    let bare = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
    return bare.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
  }
}
