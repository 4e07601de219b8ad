import AppStoreServerAPI
import AppStoreSimulator
import Foundation
import PostgresNIO
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// A year of 200 customers delivered with 10 % of notifications lost and the rest shuffled:
/// after a replay from Transaction History and statuses every account answers the truth, and
/// a second replay stores nothing.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct CustomerReplayTests {
  typealias S = SimulatedAppStoreHarness

  @Test func replayLandsEveryKnownCustomerOnTheTruthAndRepeatsAsANoOp() async throws {
    let simulation = Simulation(SimulationConfiguration(customers: 200, months: 12, seed: 17))
    let store = S.store(simulation)
    try await S.withLedger { ledger, database in
      try await S.withWebhook(ledger) { url in
        await NotificationDeliverer(
          store: store, webhookURL: url,
          faults: DeliveryFaults(dropFraction: 0.1, reorder: true, seed: 2), logger: S.logger
        ).deliverPending()
      }
      #expect(store.notifications().contains { !$0.delivered })
      try await S.withClient(store) { api in
        let replay = CustomerReplay(
          ledger: ledger, client: api, environment: .sandbox, logger: S.logger)
        let first = try await replay.replay(.everyone)
        #expect(first.customers > 150 && first.customers <= 200)
        #expect(first.appended > 0 && first.rejected.isEmpty)
        // Get Refund History is read too; the next run starts from its stored revision.
        #expect(first.refundsFetched > 0)
        let stored = try await Self.eventCount(database)
        let second = try await replay.replay(.everyone)
        #expect(second.appended == 0 && second.transactionsFetched == 0)
        #expect(second.refundsFetched == 0)
        #expect(second.customers == first.customers)
        #expect(try await Self.eventCount(database) == stored)
      }
      // After the replay: the App Store signed what it served when it served it, each
      // signature a moment after the one before, from the end of the simulated months on.
      let time = store.lastSigned
      #expect(time > simulation.configuration.end)
      var compared = 0
      for customer in simulation.truth.customers {
        guard let token = customer.appAccountToken else { continue }
        for subscription in try await ledger.subscriptions(for: token, at: time.date) {
          // The truth's last note is at or before the end: the same at every later instant.
          let id = subscription.originalTransactionId
          #expect(
            subscription.status == simulation.truth.status(of: id, at: time)?.rawValue, "\(id)")
          compared += 1
        }
      }
      #expect(compared > 100)
    }
  }

  static func eventCount(_ database: TestDatabase) async throws -> Int {
    try await database.asAdmin { client in
      try await client.query("SELECT count(*) FROM storeledger.events", logger: TestDatabase.logger)
      { rows in
        var count = 0
        for try await value in rows.decode(Int.self) { count = value }
        return count
      }
    }
  }
}
