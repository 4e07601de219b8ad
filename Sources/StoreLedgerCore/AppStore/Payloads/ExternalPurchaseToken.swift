/// The `externalPurchaseToken` body of an `EXTERNAL_PURCHASE_TOKEN` notification.
public struct ExternalPurchaseToken: Hashable, Sendable, Codable {
  /// Sandbox ids start with `SANDBOX`; there is no `environment` field.
  public var externalPurchaseId: String?
  public var tokenCreationDate: Timestamp?
  public var appAppleId: Int64?
  public var bundleId: String?
  /// Custom-link tokens only.
  public var tokenExpirationDate: Timestamp?
  /// Custom-link tokens only.
  public var tokenType: ExternalPurchaseTokenType?

  public init() {}
}
