/// What the reducers need of a verified notification: its kind, Apple's time and status, and
/// the facts of the transaction and renewal info signed inside it.
public struct NotificationFacts: Hashable, Sendable, Codable {
  public static let eventType = EventTypes.notification

  public var notificationType: NotificationType?
  public var subtype: NotificationSubtype?
  public var signedDate: Timestamp?
  /// `data.status`: Apple's signed status of the subscription, when the notification has one.
  public var status: SubscriptionStatus?
  public var transaction: TransactionFacts?
  public var renewal: RenewalInfoFacts?
  /// `UNCLAIM_SEATS`: the seat claims the App Store released.
  public var unclaimSeatIds: [String]?
  /// `RESCIND_CONSENT`: the download (appTransactionId) whose consent was withdrawn.
  public var appTransactionId: String?

  public init(
    notificationType: NotificationType? = nil, subtype: NotificationSubtype? = nil,
    signedDate: Timestamp? = nil, status: SubscriptionStatus? = nil,
    transaction: TransactionFacts? = nil, renewal: RenewalInfoFacts? = nil,
    unclaimSeatIds: [String]? = nil, appTransactionId: String? = nil
  ) {
    self.unclaimSeatIds = unclaimSeatIds
    self.appTransactionId = appTransactionId
    self.notificationType = notificationType
    self.subtype = subtype
    self.signedDate = signedDate
    self.status = status
    self.transaction = transaction
    self.renewal = renewal
  }

  /// A parent withdrew consent for a download (`RESCIND_CONSENT`).
  public var rescindsConsent: Bool {
    notificationType == .rescindConsent && appTransactionId != nil
  }

  /// A refund reversal: undoes the transaction's revocation.
  public var isReversal: Bool { notificationType == .refundReversed }
}
