import AppStoreServerAPI
import AppStoreSimulator
import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// Renewal-date extensions from the ledger: one subscription (its RENEWAL_EXTENDED lands in
/// the log and moves the expiry), every active subscriber of a product (failures and the
/// summary notification linked to the request), Apple's refusals typed.
@Suite(.serialized) struct RenewalExtensionTests {
  typealias H = SimulatedAppStoreHarness
  typealias F = LedgerFixtures

  static func store() -> SimulatedAppStore {
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: "com.example.app", appAppleId: 1_234_567_890), signer: H.pki,
      now: F.t(40))
    store.put(F.transaction("6001", purchased: 35, expires: 65, token: F.account(1)), customer: "a")
    store.put(F.transaction("6002", purchased: 36, expires: 66, token: F.account(2)), customer: "b")
    // Expired: not eligible, a FAILURE in the mass extension.
    store.put(F.transaction("6003", purchased: 1, expires: 31, token: F.account(3)), customer: "c")
    return store
  }

  static func deliver(_ store: SimulatedAppStore, to ledger: Ledger, from: Int) async throws -> Int
  {
    let all = store.notifications()
    for notification in all.dropFirst(from) {
      _ = try await ledger.ingest(notification: notification.signedPayload)
    }
    return all.count
  }

  @Test func oneSubscriptionAndEveryActiveSubscriber() async throws {
    let store = Self.store()
    try await H.withLedger { ledger, _ in
      try await H.withClient(store) { apple in
        let one = try await AppleActions(ledger: ledger).extendRenewalDate(
          originalTransactionId: "6001", days: 7, reason: 3, requestIdentifier: "outage-1",
          apple: apple, at: F.t(40).date)
        #expect(one.effectiveDate == F.t(72))
        var delivered = try await Self.deliver(store, to: ledger, from: 0)
        let subscription = try await ledger.subscriptions(for: F.account(1), at: F.t(70).date)
        #expect(subscription.first?.status == 1)
        // The same request again: Apple's first answer, nothing new extended.
        let again = try await AppleActions(ledger: ledger).extendRenewalDate(
          originalTransactionId: "6001", days: 7, reason: 3, requestIdentifier: "outage-1",
          apple: apple, at: F.t(40).date)
        #expect(again.effectiveDate == F.t(72))
        #expect(store.transaction("6001")?.expiresDate == F.t(72))
        // Without a request identifier a retry on the same day is the same request: Apple
        // answers it as the first time, nothing is extended twice.
        let unnamed = try await AppleActions(ledger: ledger).extendRenewalDate(
          originalTransactionId: "6002", days: 1, reason: 1, apple: apple, at: F.t(40).date)
        let retried = try await AppleActions(ledger: ledger).extendRenewalDate(
          originalTransactionId: "6002", days: 1, reason: 1, apple: apple, at: F.t(40).date)
        #expect(unnamed.requestIdentifier == retried.requestIdentifier)
        #expect(store.transaction("6002")?.expiresDate == F.t(67))

        let mass = try await AppleActions(ledger: ledger).extendAllSubscribers(
          productId: "pro.monthly", days: 3, reason: 3, requestIdentifier: "outage-2",
          apple: apple)
        #expect(mass.requestIdentifier == "outage-2")
        delivered = try await Self.deliver(store, to: ledger, from: delivered)
        let status = try await AppleActions(ledger: ledger).extensionStatus(
          productId: "pro.monthly", requestIdentifier: "outage-2", apple: apple)
        #expect(status.complete == true && status.succeededCount == 2 && status.failedCount == 1)
        #expect(status.summaryStored == true)
        #expect(store.transaction("6002")?.expiresDate == F.t(70))

        let refused = await #expect(throws: LedgerError.self) {
          try await AppleActions(ledger: ledger).extendRenewalDate(
            originalTransactionId: "6003", days: 7, reason: 3, apple: apple)
        }
        #expect(refused?.code == .appleRefused && refused?.appleErrorCode == 4_030_004)
        let invalid = await #expect(throws: LedgerError.self) {
          try await AppleActions(ledger: ledger).extendRenewalDate(
            originalTransactionId: "6001", days: 91, reason: 3, apple: apple)
        }
        #expect(invalid?.code == .invalidRequest)
        let unknown = await #expect(throws: LedgerError.self) {
          try await AppleActions(ledger: ledger).extensionStatus(
            productId: "pro.monthly", requestIdentifier: "nope", apple: apple)
        }
        #expect(unknown?.appleErrorCode == 4_040_009)
      }
    }
  }
}
