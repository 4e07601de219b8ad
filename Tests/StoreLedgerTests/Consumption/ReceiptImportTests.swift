import AppStoreServerAPI
import AppStoreSimulator
import AppStoreVerification
import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// Migration from receipts end to end: receipts name transactions, customers are replayed
/// from signed data, tokens linked here and at Apple, failures named, and a second run resumes.
@Suite(.serialized) struct ReceiptImportTests {
  typealias H = SimulatedAppStoreHarness
  typealias F = LedgerFixtures

  @Test func receiptsMigrateCustomersAndARunResumes() async throws {
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: "com.example.app", appAppleId: 1_234_567_890), signer: H.pki,
      now: F.t(40))
    // Two customers whose app never set a token (StoreKit 1).
    store.put(F.transaction("8001", purchased: 10, expires: 40, token: nil), customer: "a")
    store.put(
      F.transaction("8002", original: "8001", purchased: 40, expires: 70, token: nil), customer: "a"
    )
    store.put(
      F.transaction("8101", product: "gems", type: .consumable, purchased: 12, token: nil),
      customer: "b")
    #expect(
      try ReceiptTransactionIdentifier.fromAppReceipt(
        SimulatedReceipt.appReceipt(transactionId: "8002")) == "8002")
    let lines = [
      SimulatedReceipt.appReceipt(transactionId: "8002") + " " + F.account(21).uppercased(),
      #"{"receipt": "\#(SimulatedReceipt.legacyTransactionReceipt(transactionId: "8101"))"}"#,
      "bm90IGEgcmVjZWlwdA==",
      SimulatedReceipt.appReceipt(transactionId: "8003") + " " + F.account(22),
      SimulatedReceipt.appReceipt(transactionId: "8101") + " not-a-token",
    ]
    let items = lines.compactMap(ReceiptImport.Item.parse(line:))
    #expect(items.count == 5 && items[0].appAccountToken == F.account(21).uppercased())
    try await H.withLedger { ledger, _ in
      try await H.withClient(store) { apple in
        let importer = ReceiptImport(
          ledger: ledger, client: apple, environment: .sandbox, logger: H.logger)
        let report = await importer.run(items)
        #expect(report.migrated == 2 && report.failed == 3, "\(report.outcomes)")
        #expect(report.outcomes[0].linkedChains == ["8001"])
        #expect(report.outcomes[2].reason?.contains("base64") == true)
        #expect(report.outcomes[3].reason != nil)
        #expect(report.outcomes[4].reason?.contains("UUID") == true)
        // The account holds the replayed subscription, and Apple carries the token now.
        let subscriptions = try await ledger.subscriptions(for: F.account(21), at: F.t(50).date)
        #expect(subscriptions.map(\.originalTransactionId) == ["8001"])
        #expect(store.transaction("8002")?.appAccountToken == F.account(21))
        // Again: the imported receipts are skipped, the failed ones fail again.
        let again = await importer.run(items)
        #expect(again.resumed == 2 && again.migrated == 0 && again.failed == 3)
      }
    }
  }
}
