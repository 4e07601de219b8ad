import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// When a derived change took effect (projections/changes.md, T1–T7): given an account's
/// events taken at the instants the ledger recorded them, when the derivation runs, then each
/// change's `effectiveAt` is the instant Apple's data dates it, whenever it was recorded.
struct ChangeEffectiveTimeTests {
  typealias F = LedgerFixtures

  /// The changes of `steps` (event, day recorded) derived in order, then the clock to `until`.
  static func derive(_ steps: [(LedgerEvent, Double)], until: Double) -> [DerivedChange] {
    var derivation = ChangeDerivation(token: F.account(1))
    var changes: [DerivedChange] = []
    for (event, day) in steps { changes += derivation.apply(event, at: F.t(day)) }
    return changes + derivation.advance(to: F.t(until))
  }

  static func first(_ kind: AccountChange.Kind, _ changes: [DerivedChange], new: String? = nil)
    -> DerivedChange?
  {
    changes.first { $0.change.kind == kind && (new == nil || $0.change.new == new) }
  }

  /// A month bought on day 0; its renewal failed at its end (day 30) with a grace period to
  /// day 36, Apple's notification recorded on `day`.
  static func failedWithGrace(recordedOn day: Double) -> [(LedgerEvent, Double)] {
    [
      (F.observed(F.transaction("1", purchased: 0, expires: 30)), 0),
      (
        F.notification(
          .didFailToRenew, .gracePeriod, signed: 30,
          transaction: F.transaction("1", purchased: 0, expires: 30),
          renewal: F.renewal("1", signed: 30, retry: true, grace: 36), status: .billingGracePeriod
        ), day
      ),
    ]
  }

  /// T1: a grace period that ended unrecovered, with no event: the clock's changes take
  /// effect at the grace period's end, not when the projector ran.
  @Test func aGracePeriodThatEndedUnrecoveredTakesEffectAtItsEnd() {
    let changes = Self.derive(Self.failedWithGrace(recordedOn: 30.2), until: 50)
    let ended = Self.first(.gracePeriodEnded, changes)
    #expect(ended?.cause == nil && ended?.effectiveAt == F.t(36))
    #expect(ended?.occurredAt == F.t(36))
  }

  /// Statuses: the same failed renewal learned only after its grace period ran out (a
  /// backfill): the subscription entered billing retry at the grace period's end, as the
  /// live ledger said it did, though the ledger never saw it in grace.
  @Test func aBillingRetryLearnedLateEnteredAtTheGracePeriodsEnd() {
    let changes = Self.derive(Self.failedWithGrace(recordedOn: 40), until: 40)
    let retry = Self.first(.subscriptionStatusChanged, changes, new: "3")
    #expect(retry?.effectiveAt == F.t(36) && retry?.occurredAt == F.t(40))
    #expect(Self.first(.billingProblemStarted, changes)?.effectiveAt == F.t(36))
  }

  /// T2: a renewal missed by the webhook and stored by a recovery a week later takes effect
  /// at its purchase, and so does the status it brings back.
  @Test func aRenewalRecoveredAWeekLateTakesEffectWhenItWasBought() {
    let renewal = F.transaction("2", original: "1", purchased: 30, expires: 60)
    let changes = Self.derive(
      [
        (F.observed(F.transaction("1", purchased: 0, expires: 30)), 0),
        (F.notification(.didRenew, signed: 30.01, transaction: renewal, status: .active), 37),
      ], until: 37)
    let renewed = Self.first(.renewal, changes)
    #expect(renewed?.occurredAt == F.t(37))
    #expect(renewed?.effectiveAt == F.t(30))
    // The subscription became active at its purchase, and again at the renewal's, not when
    // the recovery ran (the clock had ended the first period at day 30 in between).
    let active = changes.filter {
      $0.change.kind == .subscriptionStatusChanged && $0.change.new == "1"
    }
    #expect(active.map(\.effectiveAt) == [F.t(0), F.t(30)])
    #expect(active.map(\.occurredAt) == [F.t(0), F.t(37)])
  }

  /// T3: a late refund takes effect at Apple's revocation date.
  @Test func aLateRefundTakesEffectWhenAppleRevoked() {
    let refunded = F.transaction(
      "1", purchased: 0, expires: 30, signed: 3.5, revoked: 3, reason: .other)
    let changes = Self.derive(
      [
        (F.observed(F.transaction("1", purchased: 0, expires: 30)), 0),
        (F.notification(.refund, signed: 3.5, transaction: refunded), 10),
      ], until: 10)
    let refund = Self.first(.refunded, changes)
    #expect(refund?.effectiveAt == F.t(3) && refund?.occurredAt == F.t(10))
    // The entitlement it ended, with the rest of the notification's news: its signed date.
    #expect(Self.first(.entitlementRevoked, changes)?.effectiveAt == F.t(3.5))
  }

  /// T4: a billing problem Apple notified at the period's end took effect then.
  @Test func aFailedRenewalTakesEffectAtTheNotificationsDate() {
    let changes = Self.derive(
      [
        (F.observed(F.transaction("1", purchased: 0, expires: 30)), 0),
        (
          F.notification(
            .didFailToRenew, signed: 30, transaction: F.transaction("1", purchased: 0, expires: 30),
            renewal: F.renewal("1", signed: 30, retry: true), status: .billingRetry), 45
        ),
      ], until: 45)
    let started = Self.first(.billingProblemStarted, changes)
    #expect(started?.effectiveAt == F.t(30) && started?.occurredAt == F.t(45))
  }

  /// T5: a replay brings a subscription that expired long ago: it expired at its expiry,
  /// though Apple signed the history when asked; it was bought at its purchase.
  @Test func aReplayedSubscriptionExpiredAtItsExpiry() {
    let replayed = F.transaction("1", purchased: 0, expires: 30, signed: 200)
    let changes = Self.derive([(F.observed(replayed), 200)], until: 200)
    #expect(Self.first(.subscriptionStatusChanged, changes, new: "2")?.effectiveAt == F.t(30))
    #expect(Self.first(.purchase, changes)?.effectiveAt == F.t(0))
  }

  /// T6: the backend's debit takes effect at its own time; T7: nothing is later than the
  /// step that derived it.
  @Test func aDebitTakesItsOwnTimeAndNothingIsLaterThanItsStep() {
    let changes = Self.derive(
      [
        (F.observed(F.transaction("c1", product: "gems", type: .consumable, purchased: 1)), 1),
        (F.debit("d1", product: "gems", quantity: 1, at: 2), 2.5),
      ], until: 4)
    let balances = changes.filter { $0.change.kind == .balanceChanged }
    #expect(balances.map(\.effectiveAt) == [F.t(1), F.t(2)])
    #expect(balances.map(\.occurredAt) == [F.t(1), F.t(2.5)])
    let ahead = Self.derive(
      [(F.observed(F.transaction("1", purchased: 0, expires: 30, signed: 5)), 0)], until: 0)
    #expect(!ahead.isEmpty && ahead.allSatisfy { $0.effectiveAt <= $0.occurredAt })
  }
}
