import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// Changes as the difference of two snapshots: given the events (and the instants), then the
/// changes. The same log always gives the same changes.
struct AccountChangesTests {
  typealias F = LedgerFixtures
  static let token = F.account(1)

  static func snapshot(_ events: [LedgerEvent], at days: Double) -> LedgerSnapshot {
    LedgerView(LedgerState.fold(events)).snapshot(at: F.t(days))
  }

  static func kinds(_ changes: [AccountChange]) -> [AccountChange.Kind] { changes.map(\.kind) }

  @Test func aPurchaseGrantsAndTheClockRevokes() {
    let bought = [F.observed(F.transaction("1", purchased: 0, expires: 30))]
    let granted = AccountChanges.diff(
      before: Self.snapshot([], at: 1), after: Self.snapshot(bought, at: 1))
    #expect(Self.kinds(granted) == [.entitlementGranted, .subscriptionStatusChanged])
    #expect(granted[0].subject == "pro.monthly" && granted[0].new == String(F.t(30).milliseconds))
    #expect(granted[1].old == nil && granted[1].new == "1")
    // No event: the period ends by the clock.
    let ended = AccountChanges.diff(
      before: Self.snapshot(bought, at: 29), after: Self.snapshot(bought, at: 31))
    #expect(Self.kinds(ended) == [.entitlementRevoked, .subscriptionStatusChanged])
    #expect(ended[1].old == "1" && ended[1].new == "2")
    #expect(
      AccountChanges.diff(before: Self.snapshot(bought, at: 5), after: Self.snapshot(bought, at: 5))
        == [])
  }

  @Test func billingRetryAndGracePeriodAreBillingProblems() {
    let bought = F.observed(F.transaction("1", purchased: 0, expires: 30))
    let retry = F.observed(F.renewal("1", signed: 30, retry: true))
    let grace = F.observed(F.renewal("1", signed: 30, retry: true, grace: 36))
    let inRetry = AccountChanges.diff(
      before: Self.snapshot([bought], at: 29), after: Self.snapshot([bought, retry], at: 31))
    #expect(Self.kinds(inRetry).contains(.billingProblemStarted))
    #expect(!Self.kinds(inRetry).contains(.gracePeriodStarted))
    let inGrace = AccountChanges.diff(
      before: Self.snapshot([bought], at: 29), after: Self.snapshot([bought, grace], at: 31))
    #expect(Self.kinds(inGrace).contains(.gracePeriodStarted))
    #expect(Self.kinds(inGrace).contains(.billingProblemStarted))
    #expect(!Self.kinds(inGrace).contains(.entitlementRevoked))
    let renewed = F.observed(F.transaction("2", original: "1", purchased: 32, expires: 62))
    let resolved = AccountChanges.diff(
      before: Self.snapshot([bought, grace], at: 33),
      after: Self.snapshot([bought, grace, renewed], at: 33))
    #expect(Self.kinds(resolved).contains(.billingProblemResolved))
    #expect(Self.kinds(resolved).contains(.gracePeriodEnded))
    #expect(Self.kinds(resolved).contains(.entitlementEndMoved))
  }

  @Test func refundsReversalsAndBalances() {
    let gems = F.transaction(
      "5", product: "gems", type: .consumable, purchased: 1, token: Self.token, quantity: 3)
    let bought = [F.observed(gems)]
    let spent = bought + [F.debit("d1", token: Self.token, product: "gems", quantity: 1, at: 2)]
    let balance = AccountChanges.diff(
      before: Self.snapshot(bought, at: 3), after: Self.snapshot(spent, at: 3))
    #expect(Self.kinds(balance) == [.balanceChanged])
    #expect(balance[0].old == "3" && balance[0].new == "2")
    let refunded =
      spent + [
        F.observed(
          F.transaction(
            "5", product: "gems", type: .consumable, purchased: 1, signed: 4, token: Self.token,
            quantity: 3, revoked: 4, revocationType: .refundFull))
      ]
    let refund = AccountChanges.diff(
      before: Self.snapshot(spent, at: 5), after: Self.snapshot(refunded, at: 5))
    #expect(Self.kinds(refund).contains(.refunded))
    #expect(refund.first { $0.kind == .balanceChanged }?.new == "-1")
  }

  @Test func aPriceIncreaseIsPendingThenAccepted() {
    let bought = F.observed(F.transaction("1", purchased: 0, expires: 30))
    var asked = F.renewal("1", signed: 10)
    asked.priceIncreaseStatus = PriceIncreaseStatus(rawValue: 0)
    var agreed = F.renewal("1", signed: 12)
    agreed.priceIncreaseStatus = PriceIncreaseStatus(rawValue: 1)
    let pending = AccountChanges.diff(
      before: Self.snapshot([bought], at: 11),
      after: Self.snapshot([bought, F.observed(asked)], at: 11))
    #expect(Self.kinds(pending) == [.priceIncreasePending])
    let after = Self.snapshot([bought, F.observed(asked)], at: 11)
    #expect(after.subscriptions.first?.priceIncreaseStatus == 0)
    let accepted = AccountChanges.diff(
      before: Self.snapshot([bought, F.observed(asked)], at: 13),
      after: Self.snapshot([bought, F.observed(asked), F.observed(agreed)], at: 13))
    #expect(Self.kinds(accepted) == [.priceIncreaseAccepted])
    // A renewal info with no increase at all changes nothing.
    let plain = AccountChanges.diff(
      before: Self.snapshot([bought], at: 11),
      after: Self.snapshot([bought, F.observed(F.renewal("1", signed: 10))], at: 11))
    #expect(plain.isEmpty)
  }
}
