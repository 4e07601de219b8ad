import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// A stored answer may serve its whole stable interval: every answer is the same at both
/// ends of it as at the time it was computed, and the interval is as tight as the evidence.
@Suite struct StableIntervalTests {
  typealias F = LedgerFixtures

  static let catalog = ProductCatalog(products: [
    "premium.monthly": .init(entitlements: ["premium"]),
    "gems.100": .init(entitlements: ["gems"], units: 100),
    "season.pass": .init(entitlements: ["premium"], durationDays: 90),
  ])

  /// One customer per state, so the intervals are as long as a customer's life makes them
  /// (with many customers, the nearest instant of any of them bounds every interval).
  @Test(arguments: [UInt64(1), 2, 3, 42, 2026])
  func everyAnswerHoldsAcrossTheInterval(seed: UInt64) {
    var random = SeededRandom(seed: seed &+ 5)
    for customer in 0..<40 {
      let events = SyntheticLifecycles.events(customers: 1, seed: seed &* 1000 &+ UInt64(customer))
      let view = LedgerView(LedgerState.fold(events), catalog: Self.catalog)
      for _ in 0..<20 {
        let time = F.t(Double(random.int(-5 * 24..<420 * 24)) / 24)
        expectStable(view, around: time)
      }
    }
  }

  private func expectStable(_ view: LedgerView, around time: Timestamp) {
    let interval = view.stableInterval(around: time)
    #expect(interval.contains(time))
    let expected = Self.answers(view, at: time)
    if let from = interval.from {
      #expect(Self.answers(view, at: from) == expected)
    }
    if let until = interval.until {
      #expect(Self.answers(view, at: Timestamp(milliseconds: until.milliseconds - 1)) == expected)
    }
  }

  @Test func boundsAreTheNearestInstantsOfTheEvidence() {
    let pass = F.transaction(
      "np-1", product: "season.pass", type: .nonRenewingSubscription, purchased: 10, group: nil)
    let monthly = F.transaction("s-1", product: "premium.monthly", purchased: 0, expires: 30)
    let view = LedgerView(
      LedgerState.fold([F.observed(pass), F.observed(monthly)]), catalog: Self.catalog)
    #expect(view.stableInterval(around: F.t(5)) == StableInterval(from: F.t(0), until: F.t(10)))
    #expect(view.stableInterval(around: F.t(10)) == StableInterval(from: F.t(10), until: F.t(30)))
    #expect(view.stableInterval(around: F.t(31)) == StableInterval(from: F.t(30), until: F.t(100)))
    #expect(view.stableInterval(around: F.t(100)) == StableInterval(from: F.t(100), until: nil))
    #expect(view.stableInterval(around: F.t(-1)) == StableInterval(from: nil, until: F.t(0)))
    #expect(
      view.entitlements(for: "00000000-0000-4000-8000-000000000001", at: F.t(99)).contains {
        $0.active
      })
  }

  /// Grace that runs out with no notification after it: the interval ends when it does.
  @Test func graceRunningOutEndsTheInterval() {
    let period = F.transaction("g-1", product: "premium.monthly", purchased: 0, expires: 30)
    let failed = F.notification(
      .didFailToRenew, .gracePeriod, signed: 30, transaction: period,
      renewal: F.renewal("g-1", signed: 30, product: "premium.monthly", retry: true, grace: 46),
      status: .billingGracePeriod)
    let view = LedgerView(LedgerState.fold([failed]), catalog: Self.catalog)
    #expect(view.stableInterval(around: F.t(40)) == StableInterval(from: F.t(30), until: F.t(46)))
    #expect(view.subscriptions(at: F.t(40)).map(\.status) == [4])
    #expect(view.subscriptions(at: F.t(46)).map(\.status) == [3])
    expectStable(view, around: F.t(40))
  }

  @Test func anEmptyStateIsStableForever() {
    let interval = LedgerView(LedgerState()).stableInterval(around: F.t(3))
    #expect(interval == StableInterval(from: nil, until: nil))
    #expect(interval.contains(F.t(-1000)) && interval.contains(F.t(1000)))
  }

  /// Every answer except the time it was asked for.
  static func answers(_ view: LedgerView, at time: Timestamp) -> LedgerSnapshot {
    var snapshot = view.snapshot(at: time)
    snapshot.asOf = Timestamp(milliseconds: 0)
    return snapshot
  }
}
