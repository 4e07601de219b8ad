/// A verified App Store Server Notification V2 with its nested transaction and renewal info
/// decoded (they were verified with it).
public struct NotificationClaims: Hashable, Sendable {
  public static let eventType = EventTypes.notificationClaims

  /// The notification as Apple signed it; `data.signedTransactionInfo` and
  /// `data.signedRenewalInfo` may hold the original JWS strings.
  public var notification: ResponseBodyV2DecodedPayload
  public var transaction: JWSTransactionDecodedPayload?
  public var renewalInfo: JWSRenewalInfoDecodedPayload?
  /// `appData.signedAppTransactionInfo` (`RESCIND_CONSENT`), verified with the notification.
  public var appTransaction: JWSAppTransactionDecodedPayload?

  public init(
    notification: ResponseBodyV2DecodedPayload,
    transaction: JWSTransactionDecodedPayload? = nil,
    renewalInfo: JWSRenewalInfoDecodedPayload? = nil,
    appTransaction: JWSAppTransactionDecodedPayload? = nil
  ) {
    self.notification = notification
    self.transaction = transaction
    self.renewalInfo = renewalInfo
    self.appTransaction = appTransaction
  }
}
