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
        // Bought: granted, status 1.
        .entitlementGranted, .subscriptionStatusChanged,
        // Day 30, by the clock: the period ends before the ledger hears of a renewal.
        .entitlementRevoked, .subscriptionStatusChanged,
        // Day 30.5: the renewal failed, with a grace period: access again until day 36.
        .entitlementGranted, .subscriptionStatusChanged, .billingProblemStarted,
        .gracePeriodStarted,
        // Day 33: renewed.
        .entitlementEndMoved, .subscriptionStatusChanged, .billingProblemResolved,
        .gracePeriodEnded,
        // Day 63, by the clock: the period ends (the untokened purchase is not the account's).
        .entitlementRevoked, .subscriptionStatusChanged,
      ])
    #expect(changes.allSatisfy { $0.change.appAccountToken == Self.token })
    #expect(changes.last?.occurredAt == F.t(63) && changes.last?.cause == nil)
    #expect(changes[0].cause != nil && changes[0].occurredAt == F.t(0))
    #expect(changes[2].cause == nil && changes[2].occurredAt == F.t(30))
    #expect(changes[5].change.old == "2" && changes[5].change.new == "4")
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
}
