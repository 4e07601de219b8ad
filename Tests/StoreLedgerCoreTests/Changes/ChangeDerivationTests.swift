import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// Step-by-step derivation: given an account's events at their instants, then its changes,
/// the clock's included; resuming from a saved state gives what deriving from the start gives.
struct ChangeDerivationTests {
  typealias F = LedgerFixtures
  static let token = F.account(1)

  static let steps: [(LedgerEvent, Double)] = [
    (F.observed(F.transaction("1", purchased: 0, expires: 30)), 0),
    (F.observed(F.renewal("1", signed: 30, retry: true, grace: 36)), 30.5),
    (F.observed(F.transaction("2", original: "1", purchased: 33, expires: 63)), 33),
    (F.observed(F.transaction("7", original: "7", purchased: 40, expires: 70, token: nil)), 41),
  ]

  static func derive(_ steps: ArraySlice<(LedgerEvent, Double)>, from start: ChangeDerivation)
    -> (ChangeDerivation, [DerivedChange])
  {
    var derivation = start
    var changes: [DerivedChange] = []
    for (event, day) in steps { changes += derivation.apply(event, at: F.t(day)) }
    return (derivation, changes)
  }

  @Test func eventsAndTheClockInOrder() {
    var (derivation, changes) = Self.derive(
      Self.steps[...], from: ChangeDerivation(token: Self.token))
    changes += derivation.advance(to: F.t(100))
    let kinds = changes.map(\.change.kind)
    #expect(
      kinds == [
        // Bought: granted, status 1, the purchase with its money.
        .entitlementGranted, .subscriptionStatusChanged, .purchase,
        // Day 30, by the clock: the period ends before the ledger hears of a renewal.
        .entitlementRevoked, .subscriptionStatusChanged, .subscriptionExpired,
        // Day 30.5: the renewal failed, with a grace period: access again until day 36.
        .entitlementGranted, .subscriptionStatusChanged, .billingProblemStarted,
        .gracePeriodStarted,
        // Day 33: renewed.
        .entitlementEndMoved, .subscriptionStatusChanged, .billingProblemResolved,
        .gracePeriodEnded, .renewal,
        // Day 63, by the clock: the period ends (the untokened purchase is not the account's).
        .entitlementRevoked, .subscriptionStatusChanged, .subscriptionExpired,
      ])
    #expect(changes.allSatisfy { $0.change.appAccountToken == Self.token })
    #expect(changes.last?.occurredAt == F.t(63) && changes.last?.cause == nil)
    #expect(changes[0].cause != nil && changes[0].occurredAt == F.t(0))
    #expect(changes[3].cause == nil && changes[3].occurredAt == F.t(30))
    #expect(changes[7].change.old == "2" && changes[7].change.new == "4")
    #expect(changes[2].change.money?.transactionId == "1")
    #expect(changes[14].change.money?.transactionId == "2")
    #expect(changes[14].change.money?.periodEnd == F.t(63))
    // Why each was charged, by the rule revenue counts with (ChargeReason): the chain's first
    // purchase, then a period following it (signed without transactionReason, as older rows).
    #expect(changes[2].change.money?.reason == "initial")
    #expect(changes[14].change.money?.reason == "renewal")
    #expect(changes[5].change.money?.reason == nil)
    #expect(derivation.nextClockInstant().map { $0 > F.t(100) } ?? true)
  }

  @Test func resumingFromASavedStepGivesTheSameChanges() {
    let (whole, all) = Self.derive(Self.steps[...], from: ChangeDerivation(token: Self.token))
    let (half, first) = Self.derive(Self.steps[..<2], from: ChangeDerivation(token: Self.token))
    let resumed = ChangeDerivation(
      token: Self.token, state: LedgerState.fold(Self.steps[..<2].map(\.0)),
      instant: half.instant)
    let (end, rest) = Self.derive(Self.steps[2...], from: resumed)
    #expect(first + rest == all)
    #expect(end.instant == whole.instant)
  }

  @Test func anEventOlderThanTheLastStepIsTakenAtThatStep() {
    var derivation = ChangeDerivation(token: Self.token)
    _ = derivation.apply(Self.steps[0].0, at: F.t(10))
    let late = derivation.apply(Self.steps[2].0, at: F.t(5))
    #expect(late.allSatisfy { $0.occurredAt == F.t(10) })
    #expect(derivation.instant == F.t(10))
  }

  /// A refund request's events among the account's: given Apple's request, a claim, a failed
  /// attempt and the accepted answer, then pending and answered (C15, C16), nothing for the
  /// claim or the failure; another request that expires is closed (C17). Resuming after any
  /// step gives the same changes.
  static func event(_ json: String) throws -> ConsumptionEvent {
    try JSONDecoder().decode(ConsumptionEvent.self, from: Data(json.utf8))
  }

  @Test func refundRequestsArePendingThenAnsweredOrClosed() throws {
    func event(_ json: String) throws -> ConsumptionEvent { try Self.event(json) }
    let requested = ConsumptionEvent.Requested(
      requestId: "r-1", environment: "Sandbox", transactionId: "1", originalTransactionId: "1",
      productId: "pro.monthly", productType: .autoRenewableSubscription, appAccountToken: nil,
      reason: nil, requestedAt: F.t(2))
    let other = ConsumptionEvent.Requested(
      requestId: "r-2", environment: "Sandbox", transactionId: "2", originalTransactionId: "1",
      productId: "pro.monthly", productType: .autoRenewableSubscription, appAccountToken: nil,
      reason: nil, requestedAt: F.t(3))
    let steps: [(AccountStep, Double)] = [
      (.ledger(Self.steps[0].0), 0),
      (.consumption(.requested(requested), request: "r-1", key: "k1"), 2),
      (
        .consumption(
          try event(
            #"{"sending": {"attempt": 1, "answer": {"customerConsented": true, "deliveryStatus": "DELIVERED", "sampleContentProvided": false}, "reasons": [], "source": "policy", "worker": "w", "at": 0, "leaseUntil": 0}}"#
          ), request: "r-1", key: "k2"), 2.1
      ),
      (
        .consumption(
          try event(
            #"{"attemptFailed": {"attempt": 1, "at": 0, "code": "api_error", "retryAt": 0}}"#),
          request: "r-1", key: "k3"), 2.1
      ),
      (
        .consumption(
          try event(#"{"answered": {"attempt": 2, "at": 0, "late": false}}"#), request: "r-1",
          key: "k4"), 2.3
      ),
      (.consumption(.requested(other), request: "r-2", key: "k5"), 3),
      (
        .consumption(
          try event(#"{"closed": {"outcome": "expired", "reason": "deadline", "at": 0}}"#),
          request: "r-2", key: "k6"), 3.6
      ),
    ]
    func derive(_ part: ArraySlice<(AccountStep, Double)>, from start: ChangeDerivation)
      -> [DerivedChange]
    {
      var derivation = start
      return part.flatMap { step, day in derivation.apply(step, at: F.t(day)) }
    }
    let all = derive(steps[...], from: ChangeDerivation(token: Self.token))
    let requests = all.filter { $0.change.kind.rawValue.hasPrefix("consumption.") }
    #expect(
      requests.map { [$0.change.kind.rawValue, $0.change.subject, $0.change.old, $0.change.new] }
        == [
          ["consumption.request_pending", "r-1", "1", String(F.t(2).milliseconds + 43_200_000)],
          ["consumption.request_answered", "r-1", "1", "in_time"],
          ["consumption.request_pending", "r-2", "2", String(F.t(3).milliseconds + 43_200_000)],
          ["consumption.request_closed", "r-2", "2", "expired"],
        ])
    #expect(requests.map(\.cause) == ["k1", "k4", "k5", "k6"])
    #expect(requests.allSatisfy { $0.change.appAccountToken == Self.token })
    for done in 1..<steps.count {
      var half = ChangeDerivation(token: Self.token)
      let first = steps[..<done].flatMap { step, day in half.apply(step, at: F.t(day)) }
      let resumed = ChangeDerivation(
        token: Self.token, after: steps[..<done].map(\.0), instant: half.instant)
      #expect(first + derive(steps[done...], from: resumed) == all, "resumed after \(done)")
    }
  }
}
