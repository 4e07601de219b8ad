/// One change of an account's derived state, found by comparing its projection before and
/// after an event (or before and after an instant the clock crosses). Pure data: what changed,
/// for which account, and the old and new values where there are two.
public struct AccountChange: Hashable, Sendable, Codable {
  public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
    case entitlementGranted = "entitlement.granted"
    case entitlementRevoked = "entitlement.revoked"
    case entitlementEndMoved = "entitlement.end_moved"
    case subscriptionStatusChanged = "subscription.status_changed"
    case autoRenewTurnedOff = "subscription.auto_renew_off"
    case autoRenewTurnedOn = "subscription.auto_renew_on"
    case billingProblemStarted = "subscription.billing_problem_started"
    case billingProblemResolved = "subscription.billing_problem_resolved"
    case gracePeriodStarted = "subscription.grace_period_started"
    case gracePeriodEnded = "subscription.grace_period_ended"
    case renewalExtended = "subscription.renewal_extended"
    case priceIncreasePending = "subscription.price_increase_pending"
    case priceIncreaseAccepted = "subscription.price_increase_accepted"
    case refunded = "purchase.refunded"
    case refundReversed = "purchase.refund_reversed"
    case balanceChanged = "consumable.balance_changed"
    case consumptionRequestPending = "consumption.request_pending"
    case consumptionRequestAnswered = "consumption.request_answered"
    case consumptionRequestClosed = "consumption.request_closed"
    case commitmentCancelled = "subscription.commitment_cancelled"
    case commitmentResumed = "subscription.commitment_resumed"
    case seatsChanged = "subscription.seats_changed"
    case seatClaimed = "seat.claimed"
    case seatReleased = "seat.released"
    case consentRescinded = "consent.rescinded"
    case grantStarted = "grant.started"
    case grantEnded = "grant.ended"
    // Lifecycle changes with money (C24–C32): each carries ``ChangeMoney`` as its new value.
    case purchase = "purchase"
    case renewal = "renewal"
    case trialStarted = "trial.started"
    case trialConverted = "trial.converted"
    case productChanged = "subscription.product_changed"
    case subscriptionCancelled = "subscription.cancelled"
    case subscriptionExpired = "subscription.expired"
    case refund = "refund"
    case refundReversedWithMoney = "refund.reversed"

    /// Whether the change's new value is its ``ChangeMoney``.
    public var carriesMoney: Bool {
      switch self {
      case .purchase, .renewal, .trialStarted, .trialConverted, .productChanged,
        .subscriptionCancelled, .subscriptionExpired, .refund, .refundReversedWithMoney:
        true
      default: false
      }
    }

    /// Whether the change's old and new values are instants (Unix milliseconds): an
    /// entitlement's or a subscription's end, a refund request's deadline.
    public var valuesAreInstants: Bool {
      switch self {
      case .entitlementGranted, .entitlementEndMoved, .renewalExtended,
        .consumptionRequestPending, .commitmentCancelled:
        true
      default: false
      }
    }
  }

  public var kind: Kind
  public var appAccountToken: String?
  /// What the change is about: an entitlement's name, an originalTransactionId, a
  /// transactionId, a product id or a refund request's id, by kind.
  public var subject: String
  public var old: String?
  public var new: String?

  /// The money a lifecycle change carries (nil for the other kinds).
  public var money: ChangeMoney? {
    guard kind.carriesMoney, let new else { return nil }
    return ChangeMoney(jsonText: new)
  }

  /// A lifecycle change with money: its subject, the old value (the previous product of a
  /// product change), and the money as the new value.
  public init(
    _ kind: Kind, account: String?, subject: String, old: String? = nil, money: ChangeMoney
  ) {
    self.init(kind, account: account, subject: subject, old: old, new: money.jsonText)
  }

  public init(
    _ kind: Kind, account: String?, subject: String, old: String? = nil, new: String? = nil
  ) {
    self.kind = kind
    self.appAccountToken = account
    self.subject = subject
    self.old = old
    self.new = new
  }
}
