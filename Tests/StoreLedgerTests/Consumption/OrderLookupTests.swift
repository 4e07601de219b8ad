import AppStoreServerAPI
import AppStoreSimulator
import AppStoreVerification
import Foundation
import Hummingbird
import HummingbirdTesting
import StoreLedger
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// Look Up Order ID for support: the order's purchases verified and stored if new, the accounts
/// that hold them with their entitlements; unknown orders and the Sandbox answered clearly.
@Suite(.serialized) struct OrderLookupTests {
  typealias H = SimulatedAppStoreHarness
  typealias F = LedgerFixtures
  static let appAppleId: Int64 = 1_234_567_890

  /// A Production ledger and a client of `store`'s API.
  static func withProduction(
    _ store: SimulatedAppStore,
    _ body: @Sendable (Ledger, AppStoreServerAPIClient) async throws -> Void
  ) async throws {
    try await H.withLedger(environment: .production) { ledger, _ in
      try await H.withClient(store) { apple in try await body(ledger, apple) }
    }
  }

  @Test func anOrderShowsItsPurchasesAndTheAccountsHoldingThem() async throws {
    let store = SimulatedAppStore(
      app: SimulatedApp(
        bundleId: "com.example.app", appAppleId: Self.appAppleId, environment: .production),
      signer: H.pki, now: F.t(40))
    store.put(
      F.transaction("7001", purchased: 35, expires: 65, token: F.account(5)), customer: "c1")
    store.put(
      F.transaction("7002", product: "gems", type: .consumable, purchased: 36, token: nil),
      customer: "c2")
    try await H.withLedger(environment: .production) { ledger, database in
      try await H.withClient(store) { apple in
        try await Self.showsPurchasesAndHolders(store, ledger, apple, database)
      }
    }
  }

  private static func showsPurchasesAndHolders(
    _ store: SimulatedAppStore, _ ledger: Ledger, _ apple: AppStoreServerAPIClient,
    _ database: TestDatabase
  ) async throws {
    do {
      let order = SimulatedAppStore.orderId(of: "7001")
      let report = try await AppleActions(ledger: ledger).lookUpOrder(
        order, apple: apple, at: F.t(40).date)
      #expect(report.purchases.map(\.transactionId) == ["7001"])
      #expect(report.purchases[0].newToTheLedger)
      #expect(report.accounts.map(\.appAccountToken) == [F.account(5)])
      #expect(report.accounts[0].entitlements.contains { $0.active })
      // Asked again: nothing new is stored, and the lookup itself appends nothing.
      let before = try await database.eventCount()
      let again = try await AppleActions(ledger: ledger).lookUpOrder(
        order, apple: apple, at: F.t(41).date)
      #expect(again.purchases.allSatisfy { !$0.newToTheLedger })
      #expect(try await database.eventCount() == before)
      // A purchase no account holds is named as such.
      let unlinked = try await AppleActions(ledger: ledger).lookUpOrder(
        SimulatedAppStore.orderId(of: "7002"), apple: apple, at: F.t(40).date)
      #expect(unlinked.accounts.isEmpty && unlinked.unlinked == ["7002"])
      let unknown = await #expect(throws: LedgerError.self) {
        try await AppleActions(ledger: ledger).lookUpOrder("ZZZZZZZZZZ", apple: apple)
      }
      #expect(unknown?.code == .notFound)
      let malformed = await #expect(throws: LedgerError.self) {
        try await AppleActions(ledger: ledger).lookUpOrder("../x", apple: apple)
      }
      #expect(malformed?.code == .invalidRequest)
    }
  }

  /// The console's search: an account is found by its token in any letter case, by the
  /// originalTransactionId and any transactionId of its purchases, by its customer's
  /// appTransactionId, and by an order id once a lookup recorded it; nothing else matches.
  @Test func theConsoleFindsAnAccountByEveryIdentifierSupportIsGiven() async throws {
    let store = SimulatedAppStore(
      app: SimulatedApp(
        bundleId: "com.example.app", appAppleId: Self.appAppleId, environment: .production),
      signer: H.pki, now: F.t(70))
    store.put(
      F.transaction("7201", purchased: 35, expires: 65, token: F.account(6)), customer: "c1")
    store.put(
      F.transaction("7202", original: "7201", purchased: 65, expires: 95, token: F.account(6)),
      customer: "c1")
    try await Self.withProduction(store) { ledger, apple in
      _ = try await ledger.ingest(signedTransaction: store.signedTransaction("7202")!)
      await ledger.flushIdentities()
      func found(_ query: String) async throws -> [String] {
        try await SupportQueries(ledger: ledger).findAccounts(matching: query).map {
          "\($0.appAccountToken) \($0.matched)"
        }
      }
      let account = F.account(6)
      #expect(try await found(account.uppercased()) == ["\(account) appAccountToken"])
      // As support pastes it: without dashes, in braces, as a URN.
      for spelling in [
        account.replacingOccurrences(of: "-", with: ""), "{\(account.uppercased())}",
        " urn:uuid:\(account) ",
      ] {
        #expect(try await found(spelling) == ["\(account) appAccountToken"], "\(spelling)")
      }
      #expect(try await found("7201") == ["\(account) originalTransactionId"])
      #expect(try await found("7202") == ["\(account) transactionId"])
      #expect(
        try await found(SimulatedAppStore.appTransactionId(of: "c1"))
          == ["\(account) appTransactionId"])
      let order = SimulatedAppStore.orderId(of: "7201")
      #expect(try await found(order) == [], "an order is found once looked up")
      _ = try await AppleActions(ledger: ledger).lookUpOrder(order, apple: apple, at: F.t(70).date)
      #expect(try await found(order).contains("\(account) orderId"))
      #expect(try await found("nothing-like-this") == [])
      let empty = await #expect(throws: LedgerError.self) {
        try await SupportQueries(ledger: ledger).findAccounts(matching: " ")
      }
      #expect(empty?.code == .invalidRequest)
    }
  }

  @Test func theSandboxHasNoOrderLookup() async throws {
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: "com.example.app", appAppleId: Self.appAppleId), signer: H.pki,
      now: F.t(40))
    store.put(F.transaction("7101", purchased: 35, expires: 65), customer: "c1")
    try await H.withLedger { ledger, _ in
      try await H.withClient(store) { apple in
        let refused = await #expect(throws: LedgerError.self) {
          try await AppleActions(ledger: ledger).lookUpOrder(
            SimulatedAppStore.orderId(of: "7101"), apple: apple)
        }
        #expect(refused?.code == .notFound)
        #expect(refused?.message.contains("Production only") == true)
      }
    }
  }
}
