/// The `data` body of a notification about an in-app purchase (and of `TEST`).
public struct NotificationData: Hashable, Sendable, Codable {
  /// Absent in Sandbox.
  public var appAppleId: Int64?
  public var bundleId: String?
  public var bundleVersion: String?
  public var environment: AppStoreEnvironment?
  /// A JWS that decodes to ``JWSTransactionDecodedPayload``.
  public var signedTransactionInfo: String?
  /// A JWS that decodes to ``JWSRenewalInfoDecodedPayload``; auto-renewable subscriptions only.
  public var signedRenewalInfo: String?
  /// The subscription's status as of the notification's `signedDate`.
  public var status: SubscriptionStatus?
  public var consumptionRequestReason: ConsumptionRequestReason?

  public init() {}
}
