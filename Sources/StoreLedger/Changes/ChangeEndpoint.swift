import Foundation

/// A backend's webhook that receives the change feed, and the secret its deliveries are
/// signed with. Its ``key`` (host and path, never the query or credentials) names it in the
/// delivery log, the metrics and the CLI.
public struct ChangeEndpoint: Sendable, Hashable {
  public let url: URL
  public let secret: String
  public let key: String

  /// Throws `invalidRequest` for a URL that is not absolute http(s) with a host, or an
  /// empty secret.
  public init(url text: String, secret: String) throws(LedgerError) {
    guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
      ["http", "https"].contains(scheme), let host = url.host, !host.isEmpty
    else {
      throw LedgerError(.invalidRequest, "a changes webhook must be an http(s) URL with a host")
    }
    guard !secret.isEmpty else {
      throw LedgerError(.invalidRequest, "a changes webhook needs a secret to sign with")
    }
    self.url = url
    self.secret = secret
    let port = url.port.map { ":\($0)" } ?? ""
    self.key = "\(host)\(port)\(url.path.isEmpty ? "/" : url.path)"
  }

  /// Pairs URLs with secrets given in the same order (flags or comma-separated environment
  /// values); throws when the counts differ.
  public static func list(urls: [String], secrets: [String]) throws(LedgerError)
    -> [ChangeEndpoint]
  {
    guard urls.count == secrets.count else {
      throw LedgerError(
        .invalidRequest,
        "\(urls.count) changes webhooks but \(secrets.count) secrets: give one secret per webhook")
    }
    var endpoints: [ChangeEndpoint] = []
    for (url, secret) in zip(urls, secrets) {
      endpoints.append(try ChangeEndpoint(url: url, secret: secret))
    }
    guard Set(endpoints.map(\.key)).count == endpoints.count else {
      throw LedgerError(.invalidRequest, "two changes webhooks have the same host and path")
    }
    return endpoints
  }

  /// Values of a comma-separated environment variable, blanks dropped.
  public static func values(_ text: String?) -> [String] {
    (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty }
  }
}
