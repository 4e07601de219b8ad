import AppStoreServerAPI
import AppStoreSimulator
import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// The webhook check: Apple's TEST notification requested, delivered to a webhook that
/// ingests into the ledger, and found stored; a set-up without delivery fails with advice.
@Suite(.serialized) struct WebhookCheckTests {
  typealias H = SimulatedAppStoreHarness

  static func store() -> SimulatedAppStore {
    SimulatedAppStore(
      app: SimulatedApp(bundleId: "com.example.app", appAppleId: 1_234_567_890), signer: H.pki,
      now: LedgerFixtures.t(1))
  }

  @Test func aDeliveredTestNotificationPassesAndIsRecorded() async throws {
    let store = Self.store()
    try await H.withLedger { ledger, _ in
      try await H.withWebhook(ledger) { url in
        try await H.withClient(store) { apple in
          let deliverer = NotificationDeliverer(store: store, webhookURL: url, logger: H.logger)
          let delivering = Task {
            while !Task.isCancelled {
              await deliverer.deliverPending()
              try? await Task.sleep(for: .milliseconds(50))
            }
          }
          defer { delivering.cancel() }
          let check = try await AppleActions(ledger: ledger).checkWebhook(
            apple: apple, timeout: .seconds(20), poll: .milliseconds(50))
          #expect(check.passed && check.advice == nil)
          #expect(check.storedIn == "app:Sandbox:com.example.app")
          #expect(check.attempts.first?.result == "SUCCESS")
        }
      }
    }
  }

  @Test func withoutDeliveryItFailsWithAdvice() async throws {
    let store = Self.store()
    try await H.withLedger { ledger, _ in
      try await H.withClient(store) { apple in
        let check = try await AppleActions(ledger: ledger).checkWebhook(
          apple: apple, timeout: .milliseconds(300), poll: .milliseconds(50))
        #expect(!check.passed)
        #expect(check.advice?.contains("App Store Connect") == true)
      }
    }
  }
}
