import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// Given events, then the subscription's status: one test per rule of §8.2 and per trap.
@Suite struct SubscriptionStatusTests {
  typealias F = LedgerFixtures

  func status(_ events: [LedgerEvent], _ id: String = "1000", at day: Double) -> SubscriptionView? {
    LedgerView(LedgerState.fold(events)).subscription(id, at: F.t(day))
  }

  let firstMonth = F.transaction("1000", purchased: 0, expires: 30)

  @Test func activeBeforeExpiresAndExpiredAfter() {
    let events = [F.notification(.subscribed, .initialBuy, signed: 0, transaction: firstMonth)]
    #expect(status(events, at: 10)?.status == 1)
    #expect(status(events, at: 10)?.entitled == true)
    #expect(status(events, at: 30)?.status == 2)
    #expect(status(events, at: 30)?.rule == "S5")
    #expect(status(events, at: -1) == nil)
  }

  /// Found by the simulator's truth: a reversal restores access from when it was signed; the
  /// refund was in force before it, also when folded later with the reversal known.
  @Test func aReversedRefundWasInForceUntilTheReversal() {
    let refunded = F.transaction("1000", purchased: 0, expires: 30, signed: 5, revoked: 5)
    let events = [
      F.notification(.subscribed, .initialBuy, signed: 0, transaction: firstMonth),
      F.notification(.refund, signed: 5, transaction: refunded),
      F.notification(
        .refundReversed, signed: 10,
        transaction: F.transaction("1000", purchased: 0, expires: 30, signed: 10)),
    ]
    #expect(status(events, at: 4)?.status == 1)
    #expect(status(events, at: 7)?.status == 5)
    #expect(status(events, at: 7)?.entitled == false)
    #expect(status(events, at: 10)?.status == 1)
    #expect(status(events, at: 20)?.status == 1)
    for order in [events.reversed(), [events[2], events[0], events[1]]] {
      #expect(
        LedgerView(LedgerState.fold(Array(order))).subscription("1000", at: F.t(7))?.status == 5)
    }
  }

  @Test func renewalStartsTheNextPeriod() {
    let events = [
      F.notification(.subscribed, .initialBuy, signed: 0, transaction: firstMonth),
      F.notification(
        .didRenew, signed: 30,
        transaction: F.transaction("1001", original: "1000", purchased: 30, expires: 60)),
    ]
    let view = status(events, at: 45)
    #expect(view?.status == 1)
    #expect(view?.transactionId == "1001")
    #expect(view?.expiresDate == F.t(60))
  }

  @Test func gracePeriodIsEntitledUntilItEnds() {
    let events = [
      F.notification(.subscribed, .initialBuy, signed: 0, transaction: firstMonth),
      F.notification(
        .didFailToRenew, .gracePeriod, signed: 30, transaction: firstMonth,
        renewal: F.renewal("1000", signed: 30, retry: true, grace: 46, intent: .billingError)),
    ]
    #expect(status(events, at: 31)?.status == 4)
    #expect(status(events, at: 31)?.entitled == true)
    #expect(status(events, at: 31)?.gracePeriodExpiresDate == F.t(46))
    #expect(status(events, at: 46)?.status == 3)
    #expect(status(events, at: 46)?.entitled == false)
  }

  @Test func billingRetryWithoutGraceIsNotEntitledUnlessConfigured() {
    let events = [
      F.notification(.subscribed, .initialBuy, signed: 0, transaction: firstMonth),
      F.notification(
        .didFailToRenew, signed: 30, transaction: firstMonth,
        renewal: F.renewal("1000", signed: 30, retry: true)),
    ]
    #expect(status(events, at: 35)?.status == 3)
    #expect(status(events, at: 35)?.entitled == false)
    let lenient = LedgerView(
      LedgerState.fold(events), options: ProjectionOptions(billingRetryIsEntitled: true))
    #expect(lenient.subscription("1000", at: F.t(35))?.entitled == true)
  }

  @Test func lateInitialPurchaseDoesNotReviveAFailedSubscription() {
    let failed = F.notification(
      .didFailToRenew, signed: 30, transaction: firstMonth,
      renewal: F.renewal("1000", signed: 30, retry: true))
    let lateInitial = F.notification(
      .subscribed, .initialBuy, signed: 0, transaction: firstMonth,
      renewal: F.renewal("1000", signed: 0), recorded: 31)
    #expect(status([failed, lateInitial], at: 35)?.status == 3)
  }

  @Test func olderRenewalInfoArrivingLaterChangesNothing() {
    let newer = F.observed(F.renewal("1000", signed: 20, autoRenew: .off))
    let older = F.observed(F.renewal("1000", signed: 10, autoRenew: .on))
    let events = [F.observed(firstMonth), newer, older]
    let withoutOlder = [F.observed(firstMonth), newer]
    for day in [20.0, 25, 29, 31] {
      #expect(status(events, at: day) == status(withoutOlder, at: day))
    }
    #expect(status(events, at: 25)?.autoRenewStatus == 0)
  }

  @Test func upgradedTransactionNoLongerDecides() {
    let upgradedAway = F.transaction(
      "1000", purchased: 0, expires: 30, signed: 10, upgraded: true)
    let premium = F.transaction(
      "1001", original: "1000", product: "premium.monthly", purchased: 10, expires: 40)
    let events = [
      F.notification(.subscribed, .initialBuy, signed: 0, transaction: firstMonth),
      F.notification(.didChangeRenewalPref, .upgrade, signed: 10, transaction: premium),
      F.observed(upgradedAway),
    ]
    let view = status(events, at: 35)
    #expect(view?.status == 1)
    #expect(view?.productId == "premium.monthly")
  }

  @Test func downgradeWaitsForTheNextRenewal() {
    let events = [
      F.notification(.subscribed, .initialBuy, signed: 0, transaction: firstMonth),
      F.notification(
        .didChangeRenewalPref, .downgrade, signed: 5, transaction: firstMonth,
        renewal: F.renewal("1000", signed: 5, autoRenewProduct: "basic.monthly")),
    ]
    let view = status(events, at: 10)
    #expect(view?.productId == "pro.monthly")
    #expect(view?.autoRenewProductId == "basic.monthly")
  }

  @Test func refundOfTheCurrentPeriodRevokes() {
    let refunded = F.transaction("1000", purchased: 0, expires: 30, signed: 12, revoked: 12)
    let events = [
      F.notification(.subscribed, .initialBuy, signed: 0, transaction: firstMonth),
      F.notification(.refund, signed: 12, transaction: refunded),
    ]
    #expect(status(events, at: 11)?.status == 1)
    #expect(status(events, at: 12)?.status == 5)
    #expect(status(events, at: 12)?.entitled == false)
  }

  @Test func refundOfAnOlderPeriodLeavesTheLiveOneActive() {
    let second = F.transaction("1001", original: "1000", purchased: 30, expires: 60)
    let oldRefunded = F.transaction("1000", purchased: 0, expires: 30, signed: 40, revoked: 40)
    let events = [
      F.observed(firstMonth), F.observed(second),
      F.notification(.refund, signed: 40, transaction: oldRefunded),
    ]
    #expect(status(events, at: 45)?.status == 1)
    #expect(LedgerView(LedgerState.fold(events)).revocations(at: F.t(45)).count == 1)
  }

  @Test func refundReversedReinstatesWhateverTheSnapshotSays() {
    let refunded = F.transaction("1000", purchased: 0, expires: 30, signed: 12, revoked: 12)
    let stillMarked = F.transaction("1000", purchased: 0, expires: 30, signed: 14, revoked: 12)
    let cleared = F.transaction("1000", purchased: 0, expires: 30, signed: 14)
    for reversed in [stillMarked, cleared] {
      let events = [
        F.notification(.refund, signed: 12, transaction: refunded),
        F.notification(.refundReversed, signed: 15, transaction: reversed),
      ]
      #expect(status(events, at: 20)?.status == 1)
      let revocations = LedgerView(LedgerState.fold(events)).revocations(at: F.t(20))
      #expect(revocations.map(\.reversed) == [true])
    }
  }

  @Test func familyRevokeRevokesOnlyTheMembersSubscription() {
    let member = F.transaction(
      "2000", purchased: 0, expires: 30, token: "member", ownership: .familyShared)
    let revoked = F.transaction(
      "2000", purchased: 0, expires: 30, signed: 8, token: "member", ownership: .familyShared,
      revoked: 8, revocationType: .familyRevoke)
    let events = [
      F.notification(.subscribed, .initialBuy, signed: 0, transaction: firstMonth),
      F.notification(.subscribed, .initialBuy, signed: 0, transaction: member),
      F.notification(.revoke, signed: 8, transaction: revoked),
    ]
    #expect(status(events, "2000", at: 10)?.status == 5)
    #expect(status(events, "2000", at: 10)?.inAppOwnershipType == "FAMILY_SHARED")
    #expect(status(events, "1000", at: 10)?.status == 1)
  }

  @Test func extensionMovesTheExpiry() {
    let extended = F.transaction("1000", purchased: 0, expires: 44, signed: 20)
    let events = [
      F.observed(firstMonth), F.notification(.renewalExtended, signed: 20, transaction: extended),
    ]
    #expect(status(events, at: 40)?.status == 1)
    #expect(status(events, at: 44)?.status == 2)
  }

  @Test func recoveryInBillingRetryStartsANewPeriod() {
    let recovered = F.transaction("1001", original: "1000", purchased: 40, expires: 70)
    let events = [
      F.observed(firstMonth),
      F.observed(F.renewal("1000", signed: 30, retry: true)),
      F.notification(
        .didRenew, .billingRecovery, signed: 40, transaction: recovered,
        renewal: F.renewal("1000", signed: 40)),
    ]
    #expect(status(events, at: 35)?.status == 3)
    #expect(status(events, at: 41)?.status == 1)
  }

  @Test func staleRetryFlagDoesNotOutliveTheNextPeriod() {
    let later = F.transaction("1001", original: "1000", purchased: 40, expires: 70)
    let events = [
      F.observed(firstMonth), F.observed(F.renewal("1000", signed: 30, retry: true)),
      F.observed(later),
    ]
    #expect(status(events, at: 75)?.status == 2)
  }

  @Test func evolveIsPureAndDuplicatesAreNoOps() {
    let event = F.notification(.subscribed, .initialBuy, signed: 0, transaction: firstMonth)
    let once = LedgerState.evolve(LedgerState(), event)
    #expect(LedgerState.evolve(once, event) == once)
    #expect(LedgerState() == LedgerState())
  }
}
