import AppStoreVerification
import Foundation
import Logging
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// The Ledger end to end: signed data → verified → stored → answered, on a real PostgreSQL and
/// on the in-memory storage alike.
@Suite struct LedgerTests {
  typealias F = LedgerFixtures
  static let pki = try! TestPKI()
  static let catalog = ProductCatalog(products: [
    "pro.monthly": .init(entitlements: ["pro"]),
    "gems.100": .init(entitlements: ["gems"], units: 100),
  ])

  func withLedger(_ storage: StorageKind, _ body: @Sendable (Ledger) async throws -> Void)
    async throws
  {
    try await storage.withLedger(
      LedgerConfiguration(
        bundleId: "com.example.app", environments: [.sandbox],
        trustedRoots: Self.pki.trustedRoots, catalog: Self.catalog),
      body)
  }

  static func sandbox(_ transaction: JWSTransactionDecodedPayload) -> JWSTransactionDecodedPayload {
    SignedFixtures.sandbox(transaction)
  }

  static func notification(
    _ type: NotificationType, _ subtype: NotificationSubtype? = nil, uuid: String,
    transaction: JWSTransactionDecodedPayload, pki: TestPKI = pki
  ) throws -> String {
    try SignedFixtures(pki: pki).notification(type, subtype, uuid: uuid, transaction: transaction)
  }

  /// Far enough ahead that the fixture's month-long subscription is live "now" in queries.
  static let now = F.t(10).date

  @Test(arguments: StorageKind.allCases)
  func notificationIsStoredOnceAndAnsweredAtOnce(_ storage: StorageKind) async throws {
    try await withLedger(storage) { ledger in
      let signed = try Self.notification(
        .subscribed, .initialBuy, uuid: "n-1",
        transaction: F.transaction("1000", purchased: 0, expires: 30))
      let first = try await ledger.ingest(notification: signed)
      #expect(first.streamId == "sub:Sandbox:1000")
      #expect(first.wasDuplicate == false)
      let entitlements = try await ledger.entitlements(
        for: "00000000-0000-4000-8000-000000000001", at: Self.now)
      #expect(entitlements.map(\.entitlement) == ["pro"])
      #expect(entitlements.map(\.active) == [true])
      let again = try await ledger.ingest(notification: signed)
      #expect(again.wasDuplicate)
      #expect(again.streamVersion == first.streamVersion)
      let subscriptions = try await ledger.subscriptions(
        for: "00000000-0000-4000-8000-000000000001", at: Self.now)
      #expect(subscriptions.map(\.status) == [1])
      let history = try await ledger.events(for: "00000000-0000-4000-8000-000000000001")
      #expect(history.map(\.idempotencyKey) == ["asn2:n-1"])
      #expect(history.first?.rawSigned == signed)
    }
  }

  @Test(arguments: StorageKind.allCases)
  func dataSignedByAnotherRootIsRefusedAndNothingIsStored(_ storage: StorageKind) async throws {
    try await withLedger(storage) { ledger in
      let stranger = try TestPKI()
      let signed = try Self.notification(
        .subscribed, .initialBuy, uuid: "n-2",
        transaction: F.transaction("1000", purchased: 0, expires: 30), pki: stranger)
      let error = await #expect(throws: LedgerError.self) {
        try await ledger.ingest(notification: signed)
      }
      #expect(error?.code == .verificationFailed)
      #expect(
        try await ledger.entitlements(for: "00000000-0000-4000-8000-000000000001", at: Self.now)
          .isEmpty)
    }
  }

  @Test(arguments: StorageKind.allCases)
  func debitsAreCheckedAgainstTheBalanceAndIdempotent(_ storage: StorageKind) async throws {
    try await withLedger(storage) { ledger in
      let gems = F.transaction("c1", product: "gems.100", type: .consumable, purchased: 0)
      _ = try await ledger.ingest(signedTransaction: try Self.pki.sign(Self.sandbox(gems)))
      let spent = try await ledger.debit(
        appAccountToken: "00000000-0000-4000-8000-000000000001", productId: "gems.100",
        quantity: 60, idempotencyKey: "r1",
        at: Self.now)
      #expect(spent.wasDuplicate == false)
      let error = await #expect(throws: LedgerError.self) {
        try await ledger.debit(
          appAccountToken: "00000000-0000-4000-8000-000000000001", productId: "gems.100",
          quantity: 50, idempotencyKey: "r2",
          at: Self.now)
      }
      #expect(error?.code == .insufficientBalance)
      let retried = try await ledger.debit(
        appAccountToken: "00000000-0000-4000-8000-000000000001", productId: "gems.100",
        quantity: 60, idempotencyKey: "r1",
        at: Self.now)
      #expect(retried.wasDuplicate)
      let balances = try await ledger.balances(
        for: "00000000-0000-4000-8000-000000000001", at: Self.now)
      #expect(balances.map(\.balance) == [40])
    }
  }

  @Test(arguments: StorageKind.allCases)
  func linkGivesAnUntokenedPurchaseToTheAccount(_ storage: StorageKind) async throws {
    try await withLedger(storage) { ledger in
      let untokened = F.transaction("2000", purchased: 0, expires: 30, token: nil)
      _ = try await ledger.ingest(
        notification: try Self.notification(
          .subscribed, .initialBuy, uuid: "n-3", transaction: untokened))
      #expect(
        try await ledger.entitlements(for: "00000000-0000-4000-8000-000000000007", at: Self.now)
          .isEmpty)
      _ = try await ledger.link(
        appAccountToken: "00000000-0000-4000-8000-000000000007", originalTransactionId: "2000",
        at: F.t(1).date)
      let entitlements = try await ledger.entitlements(
        for: "00000000-0000-4000-8000-000000000007", at: Self.now)
      #expect(entitlements.map(\.active) == [true])
      let explanation = try await ledger.explain(
        entitlement: "pro", for: "00000000-0000-4000-8000-000000000007", at: Self.now)
      #expect(explanation.rule.hasPrefix("E1"))
    }
  }

  @Test(.enabled(if: TestDatabase.shouldRun))
  func freshlyFetchedDataIsJudgedAtTheCurrentTimeStoredDataAtItsSignedDate() async throws {
    // A signing certificate that expired in mid-2026, after this data was signed (2026-01-01).
    let expired = try TestPKI(
      options: TestPKIOptions(
        leafValidity: Date(
          timeIntervalSince1970: 1_735_689_600)...Date(
            timeIntervalSince1970: 1_780_000_000)))
    try await SimulatedAppStoreHarness.withLedger(trusting: expired) { ledger, _ in
      let transaction = Self.sandbox(F.transaction("3000", purchased: 0, expires: 30))
      let signed = try expired.sign(transaction)
      let error = await #expect(throws: LedgerError.self) {
        try await ledger.ingest(signedTransaction: signed, source: "replay", freshlyFetched: true)
      }
      #expect(
        error?.code == .verificationFailed
          && error?.verificationCode == "certificate_not_valid_at_time")
      #expect(try await ledger.events(for: "00000000-0000-4000-8000-000000000001").isEmpty)
      let stored = try await ledger.ingest(signedTransaction: signed, source: "app")
      #expect(stored.wasDuplicate == false)
    }
  }
}
