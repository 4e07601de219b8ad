import AppStoreServerAPI
import AppStoreSimulator
import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// `link` with API credentials: the token is set at Apple first, so later transactions carry
/// it; Apple's refusals come back typed with Apple's code, and nothing is stored.
@Suite(.serialized) struct SetAppAccountTokenTests {
  typealias H = SimulatedAppStoreHarness
  typealias F = LedgerFixtures
  static let token = F.account(42)

  @Test func aLinkSetsTheTokenAtAppleAndLaterTransactionsCarryIt() async throws {
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: "com.example.app", appAppleId: 1_234_567_890), signer: H.pki,
      now: F.t(40))
    // Redeemed with an offer code in the App Store: no token.
    store.put(
      F.transaction("5001", purchased: 35, expires: 65, token: nil), customer: "c1")
    store.put(
      F.transaction(
        "5002", original: "5002", product: "gems", type: .consumable, purchased: 36, token: nil,
        ownership: .familyShared),
      customer: "c1")
    try await H.withLedger { ledger, _ in
      try await H.withClient(store) { client in
        let linked = try await ledger.link(
          appAccountToken: Self.token.uppercased(), originalTransactionId: "5001", apple: client)
        #expect(!linked.wasDuplicate)
        #expect(store.transaction("5001")?.appAccountToken == Self.token)
        // The next renewal carries it.
        store.put(
          F.transaction("5003", original: "5001", purchased: 65, expires: 95, token: nil),
          customer: "c1")
        #expect(store.transaction("5003")?.appAccountToken == Self.token)
        let stored = try await ledger.events(for: Self.token)
        #expect(stored.count == 1)
        #expect(String(decoding: stored[0].payload, as: UTF8.self).contains("setAtApple"))

        for (id, code) in [("5002", Int64(4_000_185)), ("5003", 4_000_187), ("9999", 4_040_005)] {
          let refused = await #expect(throws: LedgerError.self) {
            try await ledger.link(
              appAccountToken: F.account(43), originalTransactionId: id, apple: client)
          }
          #expect(refused?.code == .appleRefused)
          #expect(refused?.appleErrorCode == code)
        }
        #expect(try await ledger.events(for: F.account(43)).isEmpty)
      }
    }
  }

  /// A purchase has one owner: linking one that another account holds is refused before
  /// Apple is called, and moves only as a transfer, which sets the new token at Apple.
  @Test func aPurchaseHeldByAnotherAccountMovesOnlyAsATransfer() async throws {
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: "com.example.app", appAppleId: 1_234_567_890), signer: H.pki,
      now: F.t(40))
    let (owner, other) = (F.account(50), F.account(51))
    store.put(F.transaction("5101", purchased: 35, expires: 65, token: owner), customer: "c1")
    try await H.withLedger(
      catalog: ProductCatalog(products: ["pro.monthly": .init(entitlements: ["pro"])])
    ) {
      ledger, _ in
      try await H.withClient(store) { client in
        _ = try await ledger.ingest(signedTransaction: store.signedTransaction("5101")!)
        let refused = await #expect(throws: LedgerError.self) {
          try await ledger.link(
            appAccountToken: other, originalTransactionId: "5101", at: F.t(40).date,
            apple: client)
        }
        #expect(refused?.code == .purchaseHeldByAnotherAccount)
        #expect(refused?.message.contains(owner) == false)
        #expect(store.transaction("5101")?.appAccountToken == owner)
        #expect(try await ledger.events(for: other).isEmpty)

        let moved = try await ledger.link(
          appAccountToken: other, originalTransactionId: "5101", at: F.t(41).date, apple: client,
          transfer: true)
        #expect(!moved.wasDuplicate)
        #expect(store.transaction("5101")?.appAccountToken == other)
        let now = F.t(42).date
        #expect(try await ledger.entitlements(for: other, at: now).contains { $0.active })
        #expect(try await ledger.entitlements(for: owner, at: now).allSatisfy { !$0.active })
        // Before the transfer the purchase was the owner's, as it was then.
        #expect(
          try await ledger.entitlements(for: owner, at: F.t(40.5).date).contains { $0.active })
        // Both accounts hold the transfer; the new holder's answer cites it.
        for account in [owner, other] {
          #expect(
            try await ledger.events(for: account).contains { $0.streamId == "transfer:5101" })
        }
        let why = try await ledger.explain(entitlement: "pro", for: other, at: now)
        #expect(why.allEvents.contains { $0.key == moved.idempotencyKey })
        #expect(why.because.contains { $0.rule.contains("T1") })
        let before = try await ledger.explain(entitlement: "pro", for: other, at: F.t(40.5).date)
        #expect(before.answer == "never held" && before.events.isEmpty)
        // Linking it again to its holder changes nothing; the former owner is refused now.
        let relinked = try await ledger.link(
          appAccountToken: other, originalTransactionId: "5101", at: F.t(43).date)
        #expect(relinked.streamId != "transfer:5101")
        let back = await #expect(throws: LedgerError.self) {
          try await ledger.link(appAccountToken: owner, originalTransactionId: "5101")
        }
        #expect(back?.code == .purchaseHeldByAnotherAccount)
      }
    }
  }
}
