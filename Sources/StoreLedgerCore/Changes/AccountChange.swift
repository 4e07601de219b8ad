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
  }

  public var kind: Kind
  public var appAccountToken: String?
  /// What the change is about: an entitlement's name, an originalTransactionId, a
  /// transactionId, a product id or a refund request's id, by kind.
  public var subject: String
  public var old: String?
  public var new: String?

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
