/// What the reducers need of a verified notification: its kind, Apple's time and status, and
/// the facts of the transaction and renewal info signed inside it.
public struct NotificationFacts: Hashable, Sendable, Codable {
  public static let eventType = "appstore.notification.v3"

  public var notificationType: NotificationType?
  public var subtype: NotificationSubtype?
  public var signedDate: Timestamp?
  /// `data.status`: Apple's signed status of the subscription, when the notification has one.
  public var status: SubscriptionStatus?
  public var transaction: TransactionFacts?
  public var renewal: RenewalFacts?

  public init(
    notificationType: NotificationType? = nil, subtype: NotificationSubtype? = nil,
    signedDate: Timestamp? = nil, status: SubscriptionStatus? = nil,
    transaction: TransactionFacts? = nil, renewal: RenewalFacts? = nil
  ) {
    self.notificationType = notificationType
    self.subtype = subtype
    self.signedDate = signedDate
    self.status = status
    self.transaction = transaction
    self.renewal = renewal
  }

  /// A refund reversal: undoes the transaction's revocation.
  public var isReversal: Bool { notificationType == .refundReversed }
}
