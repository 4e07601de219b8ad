/// The decoded `signedPayload` of an App Store Server Notification V2.
///
/// Exactly one of `data`, `summary`, `externalPurchaseToken` and `appData` is present.
/// Nested JWS strings stay strings here; the verifier decodes and verifies them separately.
public struct ResponseBodyV2DecodedPayload: Hashable, Sendable, Codable {
  public var notificationType: NotificationType?
  public var subtype: NotificationSubtype?
  public var notificationUUID: String?
  public var version: String?
  public var signedDate: Timestamp?
  public var data: NotificationData?
  public var summary: NotificationSummary?
  public var externalPurchaseToken: ExternalPurchaseToken?
  public var appData: AppData?

  public init() {}

  /// The environment the notification belongs to, read from whichever body is present.
  ///
  /// An external purchase token carries no environment: as Apple's libraries do, an id that
  /// starts with `SANDBOX` means Sandbox and any other id means Production.
  public var environment: AppStoreEnvironment? {
    if let data { return data.environment }
    if let summary { return summary.environment }
    if let token = externalPurchaseToken {
      guard let id = token.externalPurchaseId else { return nil }
      return id.hasPrefix("SANDBOX") ? .sandbox : .production
    }
    return appData?.environment
  }

  /// The bundle id, read from whichever body is present.
  public var bundleId: String? {
    data?.bundleId ?? summary?.bundleId ?? externalPurchaseToken?.bundleId ?? appData?.bundleId
  }

  /// The app's App Store id, read from whichever body is present (absent in Sandbox).
  public var appAppleId: Int64? {
    if let data { return data.appAppleId }
    if let summary { return summary.appAppleId }
    if let token = externalPurchaseToken { return token.appAppleId }
    return appData?.appAppleId
  }
}
