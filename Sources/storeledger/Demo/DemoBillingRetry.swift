import AppStoreSimulator
import Foundation
import Logging
import StoreLedger
import StoreLedgerCore

/// Who entered billing retry in the simulated year's last 7 days (Apple's clock), as the
/// ledger's status transitions list them, beside the simulated store's books: each entry as
/// its subscription and instant, so "apart" counts entries either side has and the other has
/// not. Asked after the year was played, after the replay and after the recovery. An entry
/// the books have and the ledger lacks is "unheard" when a notification about its subscription
/// sent from its instant on never reached the webhook (the demo loses 5 % on the way): the
/// ledger could not list it until the replay or the recovery brought the news.
struct DemoBillingRetry {
  let ledger: Ledger
  let simulation: Simulation
  let store: SimulatedAppStore
  let logger: Logger

  static let days: Int64 = 7

  /// One entry into billing retry: the subscription and the instant, by Apple's clock.
  struct Entry: Hashable {
    let subscription: String
    let at: Int64
  }

  var window: (from: Timestamp, before: Timestamp) {
    let end = simulation.configuration.end
    return (Timestamp(milliseconds: end.milliseconds - Self.days * 86_400_000), end)
  }

  /// The books' entries of subscriptions an account holds (the ledger lists accounts).
  func books() -> Set<Entry> {
    let truth = simulation.truth
    let tokened = Set(truth.customers.filter { $0.appAccountToken != nil }.map(\.id))
    return Set(
      truth.entries(into: .billingRetry, from: window.from, before: window.before)
        .filter { truth.owners[$0.originalTransactionId].map(tokened.contains) ?? false }
        .map { Entry(subscription: $0.originalTransactionId, at: $0.at.milliseconds) })
  }

  /// The ledger's entries once its views (and so its status histories) have caught up.
  func listed() async throws -> Set<Entry> {
    _ = try await AccountProjector(ledger: ledger, logger: logger).catchUp()
    let lists = AccountLists(ledger: ledger)
    let filter = StatusTransitionFilter(status: 3, from: window.from, before: window.before)
    var page = try await lists.statusTransitions(filter, limit: AccountLists.pageLimit)
    var rows = page.rows
    while let cursor = page.nextCursor {
      page = try await lists.statusTransitions(
        filter, limit: AccountLists.pageLimit, cursor: cursor)
      rows += page.rows
    }
    return Set(
      rows.map { Entry(subscription: $0.originalTransactionId, at: $0.effectiveAt.milliseconds) })
  }

  /// One stage's comparison.
  func check(after stage: String) async throws -> DemoSummary.BillingRetry.Stage {
    let (listed, books) = (try await listed(), books())
    return DemoSummary.BillingRetry.Stage(
      after: stage, listed: listed.count, books: books.count,
      apart: listed.symmetricDifference(books).count,
      unheard: books.subtracting(listed).filter(unheard).count)
  }

  /// Whether a notification about the entry's subscription, sent at or after its instant,
  /// was lost on the way.
  func unheard(_ entry: Entry) -> Bool {
    store.notifications().contains { notification in
      !notification.delivered && notification.sentAt.milliseconds >= entry.at
        && notification.transactionId.flatMap { store.transaction($0)?.originalTransactionId }
          == entry.subscription
    }
  }
}
