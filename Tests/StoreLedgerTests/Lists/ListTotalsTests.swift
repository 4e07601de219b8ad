import AppStoreSimulator
import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

@testable import StoreLedger

/// Every list's total is what a person counting the table's rows by hand gets: each total the
/// library answers on a simulated half-year, beside a `SELECT count(*)` of the same rows.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct ListTotalsTests {
  typealias S = SimulatedAppStoreHarness

  static func count(_ sql: String, _ database: TestDatabase) async throws -> Int {
    try await database.asAdmin { client in
      try await client.query(PostgresQuery(unsafeSQL: sql), logger: TestDatabase.logger) {
        rows in
        var total = 0
        for try await value in rows.decode(Int.self) { total = value }
        return total
      }
    }
  }

  @Test func everyListsTotalIsACountOfItsRows() async throws {
    let store = S.store(Simulation(SimulationConfiguration(customers: 40, months: 6, seed: 21)))
    try await S.withLedger { ledger, database in
      for notification in store.notifications() {
        _ = try await ledger.ingest(notification: notification.signedPayload)
      }
      _ = try await AccountProjector(ledger: ledger, logger: TestDatabase.logger).catchUp()
      let lists = AccountLists(ledger: ledger)

      let accounts = try await lists.accounts(AccountListFilter(), limit: 5)
      #expect(
        accounts.total
          == (try await Self.count("SELECT count(*) FROM storeledger.account_views", database)))
      #expect(accounts.total > 5, "more accounts than a page")
      for status: Int32 in [1, 2, 3] {
        let page = try await lists.accounts(AccountListFilter(status: status), limit: 5)
        #expect(
          page.total
            == (try await Self.count(
              "SELECT count(*) FROM storeledger.account_views WHERE list_statuses @> ARRAY[\(status)]",
              database)),
          "status \(status)")
      }

      let everything = (Timestamp(milliseconds: 0), Timestamp(milliseconds: 4_102_444_800_000))
      for status: Int32 in [1, 2, 3, 4] {
        let page = try await lists.statusTransitions(
          StatusTransitionFilter(status: status, from: everything.0, before: everything.1),
          limit: 5)
        #expect(
          page.total
            == (try await Self.count(
              "SELECT count(*) FROM storeledger.status_history WHERE to_status = \(status)",
              database)),
          "entered \(status)")
        if status == 1 { #expect(page.total > 5, "more entries than a page") }
      }

      let requests = try await ConsumptionRequests(ledger: ledger).page(limit: 1)
      #expect(
        requests.total
          == (try await Self.count(
            "SELECT count(*) FROM storeledger.consumption_requests", database)))
    }
  }

  /// The operator's lists: notifications not understood, a changes webhook's deliveries (all
  /// and failing), a relay target's queue (all and dead) and its attempts in the log. The
  /// webhook and the target refuse every connection, so their rounds fail for real.
  @Test func theOperatorsListsTotalsAreCountsOfTheirRows() async throws {
    let store = S.store(Simulation(SimulationConfiguration(customers: 12, months: 3, seed: 23)))
    try await S.withLedger { ledger, database in
      // Nothing listens on port 1: every POST is refused (the HTTP client tries to connect
      // again until the timeout, so a short one).
      var changes = ChangeDeliveryConfiguration(
        endpoints: [try ChangeEndpoint(url: "http://127.0.0.1:1/changes", secret: "s")])
      changes.retryFor = .zero
      changes.timeout = .milliseconds(200)
      let deliverer = ChangeDeliverer(
        ledger: ledger, configuration: changes, logger: TestDatabase.logger)
      try await deliverer.register()
      let relays = Relays(ledger: ledger)
      let target = try await relays.add(
        name: "staging", url: "http://127.0.0.1:1/apple", by: "list-totals")
      for notification in store.notifications() {
        _ = try await ledger.ingest(notification: notification.signedPayload)
      }
      for index in 0..<4 {
        _ = try await ledger.ingest(
          notification: try NotUnderstoodNotificationTests.invented(uuid: "lt-\(index)"))
      }
      _ = try await AccountProjector(ledger: ledger, logger: TestDatabase.logger).catchUp()

      let notUnderstood = try await SupportQueries(ledger: ledger).notUnderstoodPage(limit: 1)
      #expect(
        notUnderstood.total
          == (try await Self.count(
            """
            SELECT count(*) FROM storeledger.events
            WHERE payload->'notification'->>'notificationType' = 'WIDGETS_RECALLED'
            """, database)))
      #expect(notUnderstood.total == 4 && notUnderstood.nextCursor != nil)

      let endpoint = try #require(changes.endpoints.first).key
      // A dead delivery lets the account's next change go: two rounds leave dead letters
      // beside waiting deliveries.
      #expect(try await deliverer.deliverRound(to: try #require(changes.endpoints.first)) > 0)
      _ = try await deliverer.deliverRound(to: try #require(changes.endpoints.first))
      let deliveries = ChangeDeliveryLog(ledger: ledger)
      let all = try await deliveries.changeDeliveriesPage(
        ChangeDeliveryFilter(endpoint: endpoint), limit: 3)
      let failing = try await deliveries.changeDeliveriesPage(
        ChangeDeliveryFilter(endpoint: endpoint, failing: true), limit: 3)
      let endpointRows = "FROM storeledger.change_deliveries WHERE endpoint = '\(endpoint)'"
      #expect(all.total == (try await Self.count("SELECT count(*) \(endpointRows)", database)))
      #expect(
        failing.total
          == (try await Self.count(
            "SELECT count(*) \(endpointRows) AND state = 'dead'", database)))
      #expect(failing.total ?? 0 > 3 && (all.total ?? 0) > (failing.total ?? 0))

      var relaying = RelayConfiguration()
      relaying.timeout = .milliseconds(200)
      let relayer = Relayer(ledger: ledger, configuration: relaying, logger: TestDatabase.logger)
      for _ in 0..<2 { _ = try await relayer.relayRound(to: target, queue: ledger.storage.relays) }
      let queue = try await relays.deliveriesPage(of: "staging", limit: 3)
      let queueRows = "FROM storeledger.relay_deliveries WHERE target = 'staging'"
      #expect(queue.total == (try await Self.count("SELECT count(*) \(queueRows)", database)))
      #expect(queue.total ?? 0 > 3)
      let attempts = try await relays.attemptsPage(of: "staging", limit: 3)
      #expect(
        attempts.total
          == (try await Self.count(
            """
            SELECT count(*) FROM storeledger.events
            WHERE stream_id = '\(target.streamId)' AND event_type = '\(RelayAttempt.eventType)'
            """, database)))
      #expect(attempts.total ?? 0 > 3 && attempts.nextBefore != nil)
    }
  }
}
