import AppStoreServerAPI
import AppStoreSimulator
import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// After lost deliveries the log disagrees with the App Store about some subscriptions; the
/// reconciliation records Apple's answer as evidence, after which they agree.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct ReconciliationTests {
  typealias S = SimulatedAppStoreHarness

  @Test func disagreementsAreRecordedAsEvidenceOnceAndThenAgree() async throws {
    let simulation = Simulation(SimulationConfiguration(customers: 40, months: 12, seed: 23))
    let store = S.store(simulation)
    try await LedgerTests().withLedger(.postgres) { ledger in
      try await S.withWebhook(ledger) { url in
        await NotificationDeliverer(
          store: store, webhookURL: url, faults: DeliveryFaults(dropFraction: 0.3, seed: 4),
          logger: S.logger
        ).deliverPending()
      }
      let subscriptions = simulation.truth.subscriptions
      try await S.withClient(store) { api in
        let reconciliation = Reconciliation(ledger: ledger, client: api, logger: S.logger)
        let first = try await reconciliation.reconcile(subscriptions)
        #expect(first.compared == subscriptions.count)
        #expect(first.disagreements.count > 0 && first.recorded == first.disagreements.count)
        for disagreement in first.disagreements {
          let truth = simulation.truth.status(
            of: disagreement.originalTransactionId, at: simulation.configuration.end)
          #expect(disagreement.appStore == truth?.rawValue)
        }
        let second = try await reconciliation.reconcile(subscriptions)
        #expect(second.disagreements.isEmpty, "\(second.disagreements.prefix(3))")
        #expect(second.recorded == 0 && second.agreed == subscriptions.count)
      }
      #expect(try await LedgerMaintenance(ledger: ledger).audit().isConsistent)
    }
  }
}
