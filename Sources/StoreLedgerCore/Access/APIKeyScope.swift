import Foundation

/// What an API key may do. A request needs one scope: reads (`GET`) need `read`; anything
/// that records or asks Apple to act (appends, debits, links, seat claims, refund answers,
/// resends) needs `write`; the console needs `console`; operations on people's data as a
/// whole (erasure, keys) need `admin`. The keys given to the server by flag or environment hold
/// every scope.
public enum APIKeyScope: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
  case read
  case write
  case console
  case admin

  public static func < (lhs: APIKeyScope, rhs: APIKeyScope) -> Bool {
    allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
  }

  /// `read,console` as scopes; nil when one is not a scope.
  public static func parse(_ text: String) -> Set<APIKeyScope>? {
    var scopes: Set<APIKeyScope> = []
    for part in text.split(separator: ",") {
      guard let scope = APIKeyScope(rawValue: part.trimmingCharacters(in: .whitespaces)) else {
        return nil
      }
      scopes.insert(scope)
    }
    return scopes.isEmpty ? nil : scopes
  }
}
