import AppStoreSimulator
import Foundation
import Logging
import PostgresNIO
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

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
}
