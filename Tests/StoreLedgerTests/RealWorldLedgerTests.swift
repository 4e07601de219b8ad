import AppStoreVerification
import Foundation
import PostgresNIO
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// Issue 20 at the ledger's edge, on a real PostgreSQL: Apple's own Sandbox data accepted by
/// the default configuration, account tokens in any case, observations Apple signs anew.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct RealWorldLedgerTests {
  typealias F = LedgerFixtures

  /// Apple leaves `appAppleId` out of Sandbox notifications: with the default environments
  /// (Production and Sandbox) and an App Apple ID configured, Apple's real TEST notification
  /// is verified by the Sandbox verifier and stored; Production data still needs the ID.
  @Test func applesRealSandboxNotificationPassesTheDefaultConfiguration() async throws {
    let test = try SharedFixtures.realApple("notification-TEST-sandbox-2025-09-05.jws")
    try await TestDatabase.withMigrated { database in
      try await database.asWriter { client in
        let configuration = LedgerConfiguration(
          bundleId: "com.loki-project.loki-messenger", appAppleId: 1_470_168_868)
        #expect(configuration.environments == [.production, .sandbox])
        let ledger = try Ledger(
          client: client, configuration: configuration, logger: TestDatabase.logger)
        let stored = try await ledger.ingest(notification: test)
        #expect(stored.wasDuplicate == false)
        #expect(stored.notificationType == "TEST")
        #expect(stored.streamId.hasPrefix("app:Sandbox:"))
        let wrongId = try Ledger(
          client: client,
          configuration: LedgerConfiguration(
            bundleId: "com.loki-project.loki-messenger", appAppleId: 1, environments: [.production]),
          logger: TestDatabase.logger)
        await #expect(throws: LedgerError.self) { try await wrongId.ingest(notification: test) }
      }
    }
  }

  /// A token that is not a UUID is refused before anything is stored; any case of a UUID is
  /// the one lower-case account.
  @Test func tokensAreUUIDsOfOneCase() async throws {
    try await SimulatedAppStoreHarness.withLedger(
      catalog: ProductCatalog(products: ["gems.100": .init(entitlements: ["gems"], units: 100)])
    ) { ledger, database in
      let lower = F.account(42)
      let upper = lower.uppercased()
      let gems = try SignedFixtures(pki: LedgerTests.pki).transaction(
        SignedFixtures.sandbox(
          F.transaction("9100", product: "gems.100", type: .consumable, purchased: 1, token: nil)))
      _ = try await ledger.ingest(signedTransaction: gems, appAccountToken: upper)
      _ = try await ledger.debit(
        appAccountToken: upper, productId: "gems.100", quantity: 30, idempotencyKey: "d-1",
        at: F.t(2).date)
      let balances = try await ledger.balances(for: lower, at: F.t(3).date)
      #expect(balances.map(\.balance) == [70])
      #expect(try await ledger.balances(for: upper, at: F.t(3).date).map(\.balance) == [70])
      let before = try await database.asWriter { client in
        try await client.query(
          "SELECT count(*) FROM storeledger.events", logger: TestDatabase.logger,
          reading: Self.count)
      }
      for bad in ["acct-1", "", "not a uuid"] {
        await #expect {
          try await ledger.debit(
            appAccountToken: bad, productId: "gems.100", quantity: 1, idempotencyKey: "d-\(bad)")
        } throws: { error in
          (error as? LedgerError)?.code == .invalidRequest
            && (bad.isEmpty || "\(error)".contains(AppAccountToken.example))
        }
        await #expect(throws: LedgerError.self) {
          try await ledger.ingest(signedTransaction: gems, appAccountToken: bad.isEmpty ? "x" : bad)
        }
        await #expect(throws: LedgerError.self) { try await ledger.entitlements(for: bad) }
      }
      let after = try await database.asWriter { client in
        try await client.query(
          "SELECT count(*) FROM storeledger.events", logger: TestDatabase.logger,
          reading: Self.count)
      }
      #expect(before == after, "nothing stored for a refused token")
      let index = try await database.asWriter { client in
        try await client.query(
          "SELECT count(*) FROM storeledger.account_streams WHERE app_account_token <> lower(app_account_token)",
          logger: TestDatabase.logger, reading: Self.count)
      }
      #expect(index == 0)
    }
  }

  /// Apple signs every response anew: the same facts fetched again are not a new event, but
  /// A, then B, then A again ends on A.
  @Test func aTransactionFetchedAgainIsStoredOnlyWhenItsFactsChanged() async throws {
    try await SimulatedAppStoreHarness.withLedger { ledger, _ in
      let fixtures = SignedFixtures(pki: LedgerTests.pki)
      func signed(_ day: Double, refunded: Bool = false) throws -> String {
        var payload = SignedFixtures.sandbox(
          F.transaction("9200", purchased: 0, expires: 30, signed: day, token: F.account(7)))
        if refunded { payload.revocationDate = F.t(day) }
        return try fixtures.transaction(payload)
      }
      let a = try await ledger.ingest(signedTransaction: signed(1), source: "replay")
      #expect(a.wasDuplicate == false)
      let aAgain = try await ledger.ingest(signedTransaction: signed(2), source: "replay")
      #expect(aAgain.wasDuplicate && aAgain.streamVersion == a.streamVersion)
      let b = try await ledger.ingest(
        signedTransaction: signed(3, refunded: true), source: "replay")
      #expect(b.wasDuplicate == false)
      let aThird = try await ledger.ingest(signedTransaction: signed(4), source: "replay")
      #expect(aThird.wasDuplicate == false, "A after B is news")
      let subscription = try await ledger.subscriptions(for: F.account(7), at: F.t(10).date)
      #expect(subscription.map(\.status) == [1], "the newest word, A, decides")
      #expect(try await ledger.events(for: F.account(7)).count == 3)
    }
  }

  @Test func recoveryWindowIsClampedToWhatAppleKeeps() {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let long = now.addingTimeInterval(-400 * 86_400)
    let production = NotificationRecovery.clamp(long, environment: .production, now: now)
    #expect(abs(production.timeIntervalSince(now) + 180 * 86_400) < 120)
    let sandbox = NotificationRecovery.clamp(long, environment: .sandbox, now: now)
    #expect(abs(sandbox.timeIntervalSince(now) + 30 * 86_400) < 120)
    let recent = now.addingTimeInterval(-86_400)
    #expect(NotificationRecovery.clamp(recent, environment: .sandbox, now: now) == recent)
  }

  @Sendable static func count(_ rows: StatementRows) async throws -> Int64 {
    var total: Int64 = 0
    for try await value in rows.decode(Int64.self) { total = value }
    return total
  }
}
