import StoreLedgerCore

/// What a presented key may do: its name and scopes. Keys given to the server by flag or
/// environment are granted every scope under the name `configured`.
public struct APIKeyGrant: Sendable, Hashable {
  public let name: String
  public let scopes: Set<APIKeyScope>
  /// The named key's public part; nil for a configured key.
  public let keyId: String?

  public init(name: String, scopes: Set<APIKeyScope>, keyId: String?) {
    self.name = name
    self.scopes = scopes
    self.keyId = keyId
  }

  public static let configured = APIKeyGrant(
    name: "configured", scopes: Set(APIKeyScope.allCases), keyId: nil)

  public func allows(_ scope: APIKeyScope) -> Bool { scopes.contains(scope) }
}
