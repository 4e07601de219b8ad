import AppStoreServerAPI
import AppStoreSimulator
import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// After deliveries were lost, recovery from Get Notification History stores exactly what
/// is missing, and the accounts then answer what the App Store knows to be true.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct NotificationRecoveryTests {
  typealias S = SimulatedAppStoreHarness

  @Test func recoveryFindsExactlyTheLostNotificationsAndCompletesTheTruth() async throws {
    let simulation = Simulation(SimulationConfiguration(customers: 60, months: 6, seed: 5))
    let store = S.store(simulation)
    try await LedgerTests().withLedger(.postgres) { ledger in
      try await S.withWebhook(ledger) { url in
        await NotificationDeliverer(
          store: store, webhookURL: url,
          faults: DeliveryFaults(dropFraction: 0.2, reorder: true, seed: 9), logger: S.logger
        ).deliverPending()
      }
      let notifications = store.notifications()
      let lost = notifications.filter { !$0.delivered }
      #expect(lost.count > 10 && lost.count < notifications.count)
      let start = simulation.configuration.start.date
      let end = simulation.configuration.end.date
      try await S.withClient(store) { client in
        let recovery = NotificationRecovery(ledger: ledger, client: client, logger: S.logger)
        let report = try await recovery.recover(from: start, to: end)
        #expect(report.found == lost.count)
        #expect(
          report.appended == lost.count && report.alreadyStored == 0 && report.rejected.isEmpty)
        let lostTypes = Dictionary(grouping: lost, by: \.type.rawValue).mapValues(\.count)
        #expect(report.appendedByType == lostTypes)
        // The whole window again: everything is already stored.
        let again = try await recovery.recover(from: start, to: end, onlyFailures: false)
        #expect(again.found == notifications.count)
        #expect(again.appended == 0 && again.alreadyStored == notifications.count)
      }
      let time = Timestamp(milliseconds: simulation.configuration.end.milliseconds - 43_200_000)
      var compared = 0
      for customer in simulation.truth.customers {
        guard let token = customer.appAccountToken else { continue }
        for subscription in try await ledger.subscriptions(for: token, at: time.date) {
          let expected = simulation.truth.status(of: subscription.originalTransactionId, at: time)
          #expect(
            subscription.status == expected?.rawValue, "\(subscription.originalTransactionId)")
          compared += 1
        }
      }
      #expect(compared > 20)
    }
  }
}
