import AppStoreServerAPI
import AppStoreSimulator
import AppStoreVerification
import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// `appTransactionId` as an identity: a purchase without a token joins the one account that
/// holds the customer's app download, in either order of arrival; replay and Get App
/// Transaction Info take the appTransactionId.
@Suite(.serialized) struct AppTransactionIdentityTests {
  typealias H = SimulatedAppStoreHarness
  typealias F = LedgerFixtures
  static let token = F.account(31)

  static func store() -> SimulatedAppStore {
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: "com.example.app", appAppleId: 1_234_567_890), signer: H.pki,
      now: F.t(40))
    store.put(F.transaction("9501", purchased: 30, expires: 60, token: token), customer: "c")
    // Redeemed with an offer code: no token, the same app download.
    store.put(
      F.transaction(
        "9601", product: "lifetime.unlock", type: .nonConsumable, purchased: 32, token: nil),
      customer: "c")
    return store
  }

  @Test(arguments: [["9501", "9601"], ["9601", "9501"]])
  func aPurchaseWithoutATokenJoinsTheAccountOfItsAppDownload(order: [String]) async throws {
    let store = Self.store()
    try await H.withLedger { ledger, _ in
      for id in order {
        _ = try await ledger.ingest(signedTransaction: store.signedTransaction(id)!)
      }
      await ledger.flushIdentities()
      let entitlements = try await ledger.entitlements(for: Self.token, at: F.t(45).date)
      #expect(entitlements.contains { $0.entitlement == "lifetime.unlock" && $0.active })
      let events = try await ledger.events(for: Self.token)
      let link = try #require(events.first { $0.eventType == AccountLinked.eventType })
      #expect(String(decoding: link.metadata, as: UTF8.self).contains("app-transaction-id"))
      // Seen again: nothing more is linked.
      _ = try await ledger.ingest(signedTransaction: store.signedTransaction("9601")!)
      await ledger.flushIdentities()
      #expect(try await ledger.events(for: Self.token).count == events.count)
    }
  }

  @Test func twoAccountsOnOneDownloadLinkNothing() async throws {
    let store = Self.store()
    store.put(
      F.transaction(
        "9701", product: "gems", type: .consumable, purchased: 33, token: F.account(32)),
      customer: "c")
    try await H.withLedger { ledger, _ in
      for id in ["9501", "9701", "9601"] {
        _ = try await ledger.ingest(signedTransaction: store.signedTransaction(id)!)
      }
      await ledger.flushIdentities()
      for token in [Self.token, F.account(32)] {
        let events = try await ledger.events(for: token)
        #expect(!events.contains { $0.eventType == AccountLinked.eventType })
      }
    }
  }

  /// The same for forty downloads at once: a purchase without a token arriving while the
  /// sightings of the download's two accounts are still being written (queued, or taken into a
  /// batch not yet in the index) links nothing either.
  @Test func tokensStillBeingWrittenCountAsHolders() async throws {
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: "com.example.app", appAppleId: 1_234_567_890), signer: H.pki,
      now: F.t(40))
    for customer in 0..<40 {
      let base = 20_000 + customer * 10
      store.put(
        F.transaction("\(base)", purchased: 30, expires: 60, token: F.account(100 + customer)),
        customer: "d\(customer)")
      store.put(
        F.transaction(
          "\(base + 1)", product: "gems", type: .consumable, purchased: 31,
          token: F.account(200 + customer)), customer: "d\(customer)")
      store.put(
        F.transaction(
          "\(base + 2)", product: "lifetime.unlock", type: .nonConsumable, purchased: 32,
          token: nil), customer: "d\(customer)")
    }
    try await H.withLedger { ledger, _ in
      try await withThrowingTaskGroup(of: Void.self) { group in
        for customer in 0..<40 {
          group.addTask {
            let base = 20_000 + customer * 10
            for id in [base, base + 1, base + 2] {
              _ = try await ledger.ingest(signedTransaction: store.signedTransaction("\(id)")!)
            }
          }
        }
        try await group.waitForAll()
      }
      await ledger.flushIdentities()
      for customer in 0..<40 {
        for token in [F.account(100 + customer), F.account(200 + customer)] {
          let events = try await ledger.events(for: token)
          #expect(!events.contains { $0.eventType == AccountLinked.eventType }, "\(token)")
        }
      }
    }
  }

  @Test func replayAndAppTransactionInfoTakeTheAppTransactionId() async throws {
    let store = Self.store()
    let appTransactionId = SimulatedAppStore.appTransactionId(of: "c")
    try await H.withLedger { ledger, _ in
      try await H.withClient(store) { apple in
        let download = try await apple.appTransactionInfo("9501")
        #expect(download.payload.appTransactionId == appTransactionId)
        let replay = CustomerReplay(
          ledger: ledger, client: apple, environment: .sandbox, logger: H.logger)
        let report = try await replay.replay(.transactions([appTransactionId]))
        #expect(report.transactionsFetched == 2 && report.rejected.isEmpty)
        await ledger.flushIdentities()
        let entitlements = try await ledger.entitlements(for: Self.token, at: F.t(45).date)
        #expect(Set(entitlements.filter(\.active).map(\.entitlement)).count == 2)
        await #expect(throws: AppStoreAPIError.self) {
          try await apple.transactionInfo(appTransactionId)
        }
      }
    }
  }

  /// The download Get App Transaction Info names is the one the customer's transactions carry
  /// (as the simulated lifecycle stamps them), so the id leads back to them.
  @Test func appTransactionInfoNamesTheDownloadTheTransactionsCarry() async throws {
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: "com.example.app", appAppleId: 1_234_567_890), signer: H.pki,
      now: F.t(40))
    var bought = F.transaction("9701", purchased: 30, expires: 60, token: Self.token)
    bought.appTransactionId = "704000000000000042"
    store.put(bought, customer: "c")
    try await H.withLedger { ledger, _ in
      try await H.withClient(store) { apple in
        let download = try await apple.appTransactionInfo("9701")
        #expect(download.payload.appTransactionId == "704000000000000042")
        let replay = CustomerReplay(
          ledger: ledger, client: apple, environment: .sandbox, logger: H.logger)
        let report = try await replay.replay(.transactions(["704000000000000042"]))
        #expect(report.transactionsFetched == 1 && report.rejected.isEmpty)
      }
    }
  }
}
