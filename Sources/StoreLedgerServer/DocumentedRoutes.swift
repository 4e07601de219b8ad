import Foundation

/// The methods each documented path takes, read from the served OpenAPI document: a request
/// for a documented path with another method is answered 405 with `Allow`, not 404.
struct DocumentedRoutes: Sendable {
  private struct Route: Sendable {
    /// A path's segments; nil where the document has a parameter (`{token}`).
    let segments: [String?]
    let methods: [String]
  }
  private let routes: [Route]

  static let shared = DocumentedRoutes(document: try? OpenAPIDocument.data())

  init(document: Data?) {
    let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]
    guard let document,
      let root = try? JSONSerialization.jsonObject(with: document) as? [String: Any],
      let paths = root["paths"] as? [String: Any]
    else {
      routes = []
      return
    }
    routes = paths.compactMap { path, item in
      guard let item = item as? [String: Any] else { return nil }
      return Route(
        segments: Self.segments(path).map { $0.hasPrefix("{") ? nil : $0 },
        methods: methods.filter { item[$0] != nil }.map { $0.uppercased() })
    }
  }

  /// The methods the document lists for `path` (an app's prefix, `/apps/NAME`, removed); empty
  /// when it documents no such path.
  func methods(for path: String) -> [String] {
    var segments = Self.segments(path)
    if segments.count > 2, segments[0] == "apps" { segments.removeFirst(2) }
    let matching = routes.filter { route in
      route.segments.count == segments.count
        && zip(route.segments, segments).allSatisfy { $0 == nil || $0 == $1 }
    }
    return Array(Set(matching.flatMap(\.methods))).sorted()
  }

  private static func segments(_ path: String) -> [String] {
    let bare = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
    return bare.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
  }
}
