import AppStoreSimulator
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// The local App Store delivering a simulated year to the real webhook, with duplicates and
/// out-of-order deliveries: every notification is stored once, and every account's
/// subscriptions answer what the simulator knows to be true.
@Suite struct SimulatedAppStoreToWebhookTests {
  typealias H = ServerHarness

  @Test func aSimulatedYearThroughTheWebhookProjectsTheTruth() async throws {
    let simulation = Simulation(SimulationConfiguration(customers: 80, months: 12, seed: 21))
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: SignedFixtures.bundleId, appAppleId: 1_234_567_890),
      signer: H.pki, now: simulation.configuration.start)
    simulation.apply(to: store, through: simulation.configuration.end)
    let logger = {
      var logger = Logger(label: "test.simulator")
      logger.logLevel = .error
      return logger
    }()
    try await H.withServer { client, database in
      let url = "http://127.0.0.1:\(try #require(client.port))/v1/notifications/appstore"
      await NotificationDeliverer(
        store: store, webhookURL: url,
        faults: DeliveryFaults(duplicateFraction: 0.2, reorder: true, seed: 3), logger: logger
      ).deliverPending()
      let notifications = store.notifications()
      #expect(notifications.count > 300)
      #expect(notifications.allSatisfy { $0.delivered })
      // One event per notification, and one more per CONSUMPTION_REQUEST: the refund request
      // it opens, in the same transaction.
      let requests = notifications.filter { $0.type == .consumptionRequest }.count
      #expect(requests > 0)
      #expect(try await H.eventCount(database) == notifications.count + requests)

      let time = Timestamp(milliseconds: simulation.configuration.end.milliseconds - 43_200_000)
      var compared = 0
      for customer in simulation.truth.customers {
        guard let token = customer.appAccountToken else { continue }
        let answer = try H.value(
          try await client.execute(
            uri: "/v1/accounts/\(token)/subscriptions?at=\(time.date.formatted(.iso8601))",
            method: .get, headers: H.authorized))
        for subscription in answer["subscriptions"]?.array ?? [] {
          guard case .string(let id)? = subscription["originalTransactionId"],
            let expected = simulation.truth.status(of: id, at: time)
          else { continue }
          #expect(subscription["status"] == .number(Double(expected.rawValue)), "\(id)")
          compared += 1
        }
      }
      #expect(compared > 40)
    }
  }
}
