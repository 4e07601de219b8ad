/// One dated fact a revenue figure counts: a charge, a refund, a trial's start, a churn.
/// Amounts are milliunits of the attributes' currency and never negative; the kind says
/// which way they count.
public struct RevenueEntry: Hashable, Sendable, Codable {
  public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
    /// A first purchase of a subscription or a one-time product, or an upgrade's purchase.
    case purchase
    /// A later period of a subscription.
    case renewal
    /// Seats a group purchaser added in the middle of a period.
    case seatAddition = "seat_addition"
    /// Money returned (full, prorated, or for some seats).
    case refund
    /// A refund Apple reversed: the money counts again.
    case refundReversed = "refund_reversed"
    /// The unused part of a period the customer upgraded away from, which Apple refunds
    /// prorated (estimated: Apple sends no refund notification for it).
    case upgradeCredit = "upgrade_credit"
    /// A subscription's first period began (trial or paid).
    case newSubscription = "new_subscription"
    case trialStarted = "trial_started"
    /// A trial's next period was paid, without a gap.
    case trialConverted = "trial_converted"
    /// A trial ended without a paid period after it.
    case trialExpired = "trial_expired"
    /// A subscription in force again after a gap.
    case reactivated
    /// A paid subscription ended: the customer turned renewal off (or declined a price
    /// increase).
    case churnVoluntary = "churn_voluntary"
    /// Ended by a billing problem (billing retry, or its end).
    case churnBilling = "churn_billing"
    /// Ended by a refund of the period in force.
    case churnRefund = "churn_refund"
    /// Ended for another reason, or one Apple did not say.
    case churnOther = "churn_other"
    /// The product in force changed (upgrade, downgrade, cross-grade).
    case productChanged = "product_changed"
  }

  public var kind: Kind
  public var date: Timestamp
  public var amount: Int64
  /// Estimated proceeds of `amount` (0 for entries without one).
  public var proceeds: Int64
  public var transactionId: String
  public var originalTransactionId: String
  public var attributes: MetricsAttributes
  /// Why a charge was made (a subscription's purchase, renewal or seat addition), from
  /// Apple's fields; nil for every other entry.
  public var reason: ChargeReason?

  public init(
    kind: Kind, date: Timestamp, amount: Int64, proceeds: Int64, transactionId: String,
    originalTransactionId: String, attributes: MetricsAttributes, reason: ChargeReason? = nil
  ) {
    self.kind = kind
    self.date = date
    self.amount = amount
    self.proceeds = proceeds
    self.transactionId = transactionId
    self.originalTransactionId = originalTransactionId
    self.attributes = attributes
    self.reason = reason
  }
}

extension RevenueEntry.Kind {
  /// An end (churn, an expired trial): dated when the period ends, so it has happened only
  /// once that time has passed.
  public var isEnd: Bool {
    switch self {
    case .churnVoluntary, .churnBilling, .churnRefund, .churnOther, .trialExpired: true
    default: false
    }
  }
}
