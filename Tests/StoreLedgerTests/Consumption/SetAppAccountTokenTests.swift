import AppStoreServerAPI
import AppStoreSimulator
import Foundation
import StoreLedger
import StoreLedgerCore
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
}
