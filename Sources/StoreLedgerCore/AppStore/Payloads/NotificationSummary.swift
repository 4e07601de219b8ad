/// The `summary` body of a `RENEWAL_EXTENSION` / `SUMMARY` notification.
public struct NotificationSummary: Hashable, Sendable, Codable {
  public var requestIdentifier: String?
  public var environment: AppStoreEnvironment?
  /// Absent in Sandbox.
  public var appAppleId: Int64?
  public var bundleId: String?
  public var productId: String?
  /// Absent when the extension applied to every storefront.
  public var storefrontCountryCodes: [String]?
  public var succeededCount: Int64?
  public var failedCount: Int64?

  public init() {}
}
