import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// The status history (projections/changes.md, H1–H5): given an account's events recorded at
/// some instants, when its history is derived, then each status a subscription entered is
/// there at Apple's instant, whenever and in whatever order the ledger recorded the events.
struct StatusHistoryTests {
  typealias F = LedgerFixtures

  /// A month bought on day 0 whose renewal failed at its end (day 30, no grace), recovered by
  /// a renewal bought on day 38: Apple's notifications, each recorded on the day given.
  static func retryThenRecovery(recorded: (Double, Double, Double)) -> [LedgerEvent] {
    let first = F.transaction("1", purchased: 0, expires: 30)
    let renewal = F.transaction("2", original: "1", purchased: 38, expires: 68)
    return [
      F.notification(
        .subscribed, signed: 0, transaction: first, status: .active, recorded: recorded.0),
      F.notification(
        .didFailToRenew, signed: 30, transaction: first,
        renewal: F.renewal("1", signed: 30, retry: true), status: .billingRetry,
        recorded: recorded.1),
      F.notification(
        .didRenew, .billingRecovery, signed: 38, transaction: renewal,
        renewal: F.renewal("1", signed: 38, retry: false), status: .active,
        recorded: recorded.2),
    ]
  }

  static func entries(_ rows: [StatusTransitionRow]) -> [String] {
    rows.map { "\($0.from.map(String.init) ?? "-")→\($0.to)@\($0.effectiveAt.milliseconds)" }
  }

  /// H1–H3: recorded as it happened or all on day 100, the history is the same: active at
  /// the purchase, billing retry at the period's end, active again at the renewal's purchase,
  /// expired when the renewed period ended with no news (the clock, day 68).
  @Test func aYearRecordedInOneGoHasTheSameHistoryAsOneRecordedLive() {
    let live = StatusHistory.derive(
      token: F.account(1), events: Self.retryThenRecovery(recorded: (0.01, 30.01, 38.01)),
      through: F.t(100))
    let late = StatusHistory.derive(
      token: F.account(1), events: Self.retryThenRecovery(recorded: (100, 100, 100)),
      through: F.t(100))
    let expected = [
      "-→1@\(F.t(0).milliseconds)", "1→3@\(F.t(30).milliseconds)",
      "3→1@\(F.t(38).milliseconds)", "1→2@\(F.t(68).milliseconds)",
    ]
    #expect(Self.entries(live) == expected)
    #expect(Self.entries(late) == expected)
    #expect(late.map(\.ordinal) == [0, 1, 2, 3])
    #expect(late.last?.cause == nil)
    // H4: the live history could tell each entry when its event was recorded (the clock's at
    // its crossing); the late one only on day 100.
    #expect(live.map(\.recordedAt) == [F.t(0.01), F.t(30.01), F.t(38.01), F.t(68)])
    #expect(late.allSatisfy { $0.recordedAt == F.t(100) })
  }

  /// The feed, derived at the recordings, tells the late account only where it stood on day
  /// 100: no entry into billing retry. The history is what a window reads.
  @Test func theFeedOfALateRecordingHasNoEntryTheHistoryHas() {
    var derivation = ChangeDerivation(token: F.account(1))
    var told: [DerivedChange] = []
    for event in Self.retryThenRecovery(recorded: (100, 100, 100)) {
      told += derivation.apply(event, at: F.t(100))
    }
    #expect(!told.contains { $0.change.kind == .subscriptionStatusChanged && $0.change.new == "3" })
  }

  /// H1: events recorded out of Apple's order (the renewal before the failure) are taken in
  /// Apple's order; H2: the clock ends a period no event followed (expired at day 68).
  @Test func eventsAreTakenInApplesOrderAndTheClockStepsBetweenThem() {
    var events = Self.retryThenRecovery(recorded: (100, 102, 101))
    events.swapAt(1, 2)
    let rows = StatusHistory.derive(token: F.account(1), events: events, through: F.t(120))
    #expect(
      Array(Self.entries(rows).prefix(3)) == [
        "-→1@\(F.t(0).milliseconds)", "1→3@\(F.t(30).milliseconds)",
        "3→1@\(F.t(38).milliseconds)",
      ])
    #expect(rows.last?.to == 2 && rows.last?.cause == nil)
    #expect(rows.last?.effectiveAt == F.t(68))
    #expect(rows.last?.recordedAt == F.t(102))
  }

  /// An event recorded just after the projector took its instant (a race the projector's
  /// read allows) is taken as a later derivation (the audit's) takes it: the history does not
  /// depend on when it was derived while no clock step lies between.
  @Test func theHistoryDoesNotDependOnWhenItWasDerived() {
    let events = Array(Self.retryThenRecovery(recorded: (0.01, 30.02, 38.01)).prefix(2))
    let projected = StatusHistory.derive(token: F.account(1), events: events, through: F.t(30.01))
    let audited = StatusHistory.derive(token: F.account(1), events: events, through: F.t(30.03))
    #expect(projected == audited)
    #expect(projected.last?.recordedAt == F.t(30.02))
  }

  /// H5: a transaction signed on request is taken at its purchase; nothing else is said of
  /// what came between it and the asking.
  @Test func aTransactionSignedOnRequestIsTakenAtItsPurchase() {
    let rows = StatusHistory.derive(
      token: F.account(1),
      events: [F.observed(F.transaction("1", purchased: 10, expires: 40), recorded: 90)],
      through: F.t(90))
    #expect(Self.entries(rows) == ["-→1@\(F.t(10).milliseconds)", "1→2@\(F.t(40).milliseconds)"])
  }

  /// A derivation continued with events that happened later gives the whole derivation's
  /// history, wherever the log is cut and whatever instants were asked about in between.
  @Test func aHistoryContinuedWithLaterEventsIsTheWholeDerivation() {
    let events = Self.retryThenRecovery(recorded: (0.01, 30.01, 38.01))
    let whole = StatusHistory.derive(token: F.account(1), events: events, through: F.t(100))
    for cut in 0...events.count {
      var derivation = StatusHistoryDerivation(token: F.account(1))
      derivation.take(Array(events[..<cut]), recordedBy: F.t(100))
      _ = derivation.history(through: F.t(cut == 0 ? 1 : 34))
      #expect(derivation.canContinue(with: events[cut...]), "cut at \(cut)")
      derivation.take(Array(events[cut...]), recordedBy: F.t(100))
      #expect(derivation.taken == events.count)
      #expect(derivation.history(through: F.t(100)) == whole, "cut at \(cut)")
    }
  }

  /// An event whose news came before the last one taken, or one without a recording, cannot
  /// continue a derivation: the history would not be the log's.
  @Test func anEarlierEventOrOneWithoutARecordingCannotContinue() {
    // The failure (signed day 30) recorded after the renewal (signed day 38).
    let events = Self.retryThenRecovery(recorded: (0.01, 40, 38.01))
    var derivation = StatusHistoryDerivation(token: F.account(1))
    derivation.take([events[0], events[2]], recordedBy: F.t(100))
    #expect(!derivation.canContinue(with: [events[1]]))
    var unrecorded = events[2]
    unrecorded.recordedAt = nil
    var fresh = StatusHistoryDerivation(token: F.account(1))
    fresh.take([events[0]], recordedBy: F.t(100))
    #expect(!fresh.canContinue(with: [unrecorded]))
    fresh.take([unrecorded], recordedBy: F.t(100))
    #expect(!fresh.continuable && !fresh.canContinue(with: []))
  }
}
