import AppStoreSimulator
import AppStoreVerification
import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerMemory
import StoreLedgerTestSupport
import Synchronization
import Testing

/// One simulated year played into a ledger as it happens (each notification recorded a minute
/// after Apple sent it, the projector running every week of it) and all at once after the
/// year (as a demo, a backfill or a migration records it): windows select on Apple's clock,
/// and the changes of a year recorded in one go spread over that year.
@Suite struct ChangeEffectiveTimeFeedTests {
  typealias S = SimulatedAppStoreHarness
  static let simulation = Simulation(
    SimulationConfiguration(customers: 60, months: 12, seed: 11))
  static let day: Int64 = 86_400_000

  /// The ledger's clock, moved by the test.
  final class Clock: Sendable {
    let now: Mutex<Date>
    init(_ start: Date) { now = Mutex(start) }
    func set(_ time: Date) { now.withLock { $0 = time } }
    func read() -> Date { now.withLock { $0 } }
  }

  static func ledger(_ clock: Clock) throws -> Ledger {
    try Ledger(
      storage: InMemoryLedgerStorage(now: { clock.read() }),
      configuration: LedgerConfiguration(
        bundleId: "com.example.app", environments: [.sandbox], trustedRoots: S.pki.trustedRoots),
      logger: TestDatabase.logger)
  }

  static func store() -> SimulatedAppStore {
    SimulatedAppStore(
      app: SimulatedApp(bundleId: "com.example.app", appAppleId: 1_234_567_890), signer: S.pki,
      now: simulation.configuration.start)
  }

  static func deliver(
    _ notifications: ArraySlice<SimulatedNotification>, to ledger: Ledger, clock: Clock,
    recordedAt: (SimulatedNotification) -> Date
  ) async throws {
    for notification in notifications {
      clock.set(recordedAt(notification))
      _ = try await ledger.ingest(notification: notification.signedPayload)
    }
  }

  /// The year as it happens: `step` days of Apple's steps at a time, its notifications each
  /// recorded `delay` seconds after they were sent, the projector at the step's end.
  static func playedAsItHappens(step: Int64 = 7, delay: TimeInterval = 60) async throws -> Ledger {
    let end = simulation.configuration.end
    let clock = Clock(simulation.configuration.start.date)
    let ledger = try ledger(clock)
    let store = store()
    let projector = AccountProjector(ledger: ledger, logger: TestDatabase.logger)
    var (next, delivered, time) = (0, 0, simulation.configuration.start)
    while time < end {
      time = Timestamp(milliseconds: min(time.milliseconds + step * day, end.milliseconds))
      next = simulation.apply(to: store, from: next, through: time)
      let sent = store.notifications()
      try await deliver(sent[delivered...], to: ledger, clock: clock) {
        $0.sentAt.date.addingTimeInterval(delay)
      }
      delivered = sent.count
      let now = time.date.addingTimeInterval(delay + 60)
      clock.set(now)
      _ = try await projector.catchUp(now: now)
    }
    return ledger
  }

  /// The year recorded in one go a day after it ended.
  static func playedAtOnce() async throws -> Ledger {
    let after = simulation.configuration.end.date.addingTimeInterval(86_400)
    let clock = Clock(after)
    let ledger = try ledger(clock)
    let store = store()
    simulation.apply(to: store, through: simulation.configuration.end)
    try await deliver(store.notifications()[...], to: ledger, clock: clock) { _ in after }
    _ = try await AccountProjector(ledger: ledger, logger: TestDatabase.logger).catchUp(now: after)
    return ledger
  }

  /// Every subscription that entered billing retry in `[from, before)`, with when.
  static func enteredBillingRetry(_ ledger: Ledger, from: Timestamp, before: Timestamp)
    async throws -> Set<String>
  {
    let lists = AccountLists(ledger: ledger)
    let filter = StatusTransitionFilter(status: 3, from: from, before: before)
    var page = try await lists.statusTransitions(filter, limit: 100)
    var found = page.rows
    while let cursor = page.nextCursor {
      page = try await lists.statusTransitions(filter, limit: 100, cursor: cursor)
      found += page.rows
    }
    #expect(page.total == found.count)
    return Set(found.map { "\($0.originalTransactionId)@\($0.effectiveAt.milliseconds)" })
  }

  /// The books' entries into billing retry of subscriptions some account holds.
  static func books(from: Timestamp, before: Timestamp) -> Set<String> {
    let tokened = Set(simulation.truth.customers.filter { $0.appAccountToken != nil }.map(\.id))
    return Set(
      simulation.truth.entries(into: .billingRetry, from: from, before: before)
        .filter { simulation.truth.owners[$0.originalTransactionId].map(tokened.contains) ?? false }
        .map { "\($0.originalTransactionId)@\($0.at.milliseconds)" })
  }

  /// "Who entered billing retry" in every 30 days of the year and in its last 7 days is the
  /// books' list, at the books' instants.
  static func expectTheBooksInEveryWindow(_ ledger: Ledger) async throws {
    let (start, end) = (simulation.configuration.start, simulation.configuration.end)
    var windows = [(Timestamp(milliseconds: end.milliseconds - 7 * day), end)]
    var from = start.milliseconds
    while from < end.milliseconds {
      windows.append((Timestamp(milliseconds: from), Timestamp(milliseconds: from + 30 * day)))
      from += 30 * day
    }
    var total = 0
    for (from, before) in windows {
      let books = books(from: from, before: before)
      let entered = try await enteredBillingRetry(ledger, from: from, before: before)
      #expect(entered == books, "\(from) – \(before)")
      total += books.count
    }
    #expect(total > 10, "the year has entries into billing retry to compare")
  }

  /// Played as it happens, "who entered billing retry" in every 30 days of the year and in
  /// its last 7 days is exactly the simulator's books, at the books' instants; an outage
  /// grant over a window selects those accounts.
  @Test func whoEnteredBillingRetryInAWindowIsTheBooks() async throws {
    let live = try await Self.playedAsItHappens()
    try await Self.expectTheBooksInEveryWindow(live)
    let (start, end) = (Self.simulation.configuration.start, Self.simulation.configuration.end)
    let window = (from: start.date.addingTimeInterval(90 * 86_400), before: end.date)
    let granted = try await SupportGrants(ledger: live).accounts(
      enteredStatus: 3, from: window.from, before: window.before)
    let owners = Dictionary(
      uniqueKeysWithValues: Self.simulation.truth.customers.compactMap { customer in
        customer.appAccountToken.map { (customer.id, $0) }
      })
    let expected = Set(
      Self.simulation.truth.entries(
        into: .billingRetry, from: Timestamp(window.from), before: Timestamp(window.before)
      ).compactMap { Self.simulation.truth.owners[$0.originalTransactionId].flatMap { owners[$0] } }
    )
    #expect(!granted.isEmpty && Set(granted) == expected)
  }

  /// The same year played at another speed (Apple's steps two days apart, each notification
  /// recorded an hour late, the projector less often relative to it) gives an outage grant the
  /// same accounts: a selection on Apple's clock does not depend on when the ledger learned.
  @Test func anOutageGrantSelectsTheSameAccountsAtTwoSpeeds() async throws {
    let weekly = try await Self.playedAsItHappens(step: 7, delay: 60)
    let quick = try await Self.playedAsItHappens(step: 2, delay: 3600)
    let (start, end) = (Self.simulation.configuration.start, Self.simulation.configuration.end)
    for days in [(30, 120), (120, 240), (240, 365)] {
      let from = start.date.addingTimeInterval(Double(days.0) * 86_400)
      let before = min(start.date.addingTimeInterval(Double(days.1) * 86_400), end.date)
      let one = try await SupportGrants(ledger: weekly).accounts(
        enteredStatus: 3, from: from, before: before)
      let other = try await SupportGrants(ledger: quick).accounts(
        enteredStatus: 3, from: from, before: before)
      #expect(Set(one) == Set(other), "days \(days.0)–\(days.1)")
    }
    let year = try await SupportGrants(ledger: weekly).accounts(
      enteredStatus: 3, from: start.date, before: end.date)
    #expect(!year.isEmpty, "the year has accounts to select")
  }

  /// Recorded in one go a day after the year ended (a backfill, an import, the demo), "who
  /// entered billing retry" in every 30 days and in the last 7 is still the books: the status
  /// history takes the year in Apple's time, though the feed told each subscription only
  /// where it stood when it was recorded.
  @Test func aYearRecordedInOneGoStillTellsWhoEnteredBillingRetry() async throws {
    let ledger = try await Self.playedAtOnce()
    try await Self.expectTheBooksInEveryWindow(ledger)
    let (start, end) = (Self.simulation.configuration.start, Self.simulation.configuration.end)
    // The feed told fewer: entries that began and ended before the recording are not news.
    let reader = ChangeFeedReader(ledger: ledger)
    var told = 0
    var position: Int64 = 0
    while true {
      let page = try await reader.changes(after: position, limit: 1000)
      guard let last = page.last else { break }
      position = last.position
      told +=
        page.filter {
          $0.change.kind == .subscriptionStatusChanged && $0.change.new == "3"
        }.count
    }
    #expect(told < Self.books(from: start, before: end).count)
  }

  @Test func theYearsChangesSpanTheYearWhenRecordedInOneGo() async throws {
    let ledger = try await Self.playedAtOnce()
    let reader = ChangeFeedReader(ledger: ledger)
    var changes: [ChangeRecord] = []
    while true {
      let page = try await reader.changes(after: changes.last?.position ?? 0, limit: 1000)
      guard !page.isEmpty else { break }
      changes += page
    }
    let effective = changes.compactMap(\.effectiveAt)
    #expect(effective.count == changes.count)
    let (start, end) = (Self.simulation.configuration.start, Self.simulation.configuration.end)
    #expect(effective.allSatisfy { $0 >= start && $0 <= end })
    // Every month of the year has changes that took effect in it; all were recorded at once.
    let months = Set(effective.map { ($0.milliseconds - start.milliseconds) / (30 * Self.day) })
    #expect(months.count >= 12)
    #expect(Set(changes.map(\.recordedAt)).count == 1)
  }
}
