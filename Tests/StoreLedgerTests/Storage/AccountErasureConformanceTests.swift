import AppStoreSimulator
import AppStoreVerification
import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// The promises of erasure, checked against PostgreSQL and memory alike: the erased accounts'
/// rows become tombstones that name nothing, everything derived from them goes, the audit
/// still proves the log, later data is quarantined or attached as the erasure chose, and a
/// refusal changes nothing. (What only PostgreSQL can show, every column of every table and
/// the planner's statistics, is in `AccountErasureTests`.)
@Suite struct AccountErasureConformanceTests {
  typealias H = SimulatedAppStoreHarness
  typealias F = LedgerFixtures
  /// The accounts, catalog and purchases of the PostgreSQL suite.
  static let erased = AccountErasureTests.erased
  static let kept = AccountErasureTests.kept
  static let configuration = LedgerConfiguration(
    bundleId: "com.example.app", appAppleId: 1_234_567_890, environments: [.production],
    trustedRoots: H.pki.trustedRoots, catalog: AccountErasureTests.catalog)

  static func store() -> SimulatedAppStore { AccountErasureTests.store() }

  /// The server's ledger and the owner's, on one storage of `kind`.
  static func withLedgers(
    _ kind: StorageKind,
    _ body: @Sendable (LedgerStorage, Ledger, Ledger) async throws -> Void
  ) async throws {
    try await kind.withOwner { storage, owner in
      try await body(
        storage, try Ledger(storage: storage, configuration: configuration),
        try Ledger(storage: owner, configuration: configuration))
    }
  }

  static func ingest(_ ids: [String], from store: SimulatedAppStore, into ledger: Ledger)
    async throws
  {
    for id in ids {
      _ = try await ledger.ingest(signedTransaction: try #require(store.signedTransaction(id)))
    }
  }

  /// Every row of the log, tombstones included, in feed order.
  static func log(_ storage: LedgerStorage) async throws -> [RecordedEvent] {
    try await storage.maintenance.events(after: .beginning, limit: 100_000, shard: .whole)
  }

  /// The rows that name `text` anywhere: stream, key, facts, claims, JWS or metadata.
  static func rows(naming text: String, in storage: LedgerStorage) async throws -> Int {
    try await log(storage).filter { event in
      let body = [event.payload, event.claims ?? [], event.metadata].map {
        String(decoding: $0, as: UTF8.self)
      }
      return ([event.streamId, event.idempotencyKey, event.rawSigned ?? ""] + body).contains {
        $0.contains(text)
      }
    }.count
  }

  @Test(arguments: StorageKind.allCases)
  func anErasedAccountLeavesNoRowNamingItAndTheLogStillProvesItself(_ kind: StorageKind)
    async throws
  {
    let store = Self.store()
    try await Self.withLedgers(kind) { storage, ledger, owner in
      // Given an account with a subscription, consumables, a debit, a consent, a view,
      // changes and revenue rows, and another account beside it.
      try await Self.ingest(["era-sub-1", "era-gems-1", "keep-sub-1"], from: store, into: ledger)
      _ = try await ledger.debit(
        appAccountToken: Self.erased, productId: "gems", quantity: 5, idempotencyKey: "spend-1",
        at: F.t(37).date)
      try await RefundConsents(ledger: ledger).record(
        appAccountToken: Self.erased, consented: true, collectedAt: F.t(36).date)
      let uuid = store.notify(
        .didChangeRenewalStatus, .autoRenewDisabled,
        transaction: try #require(store.transaction("era-sub-1")))
      _ = try await ledger.ingest(
        notification: try #require(store.notifications().first { $0.uuid == uuid }).signedPayload)
      _ = try await AccountProjector(ledger: ledger, logger: TestDatabase.logger).catchUp()
      _ = try await RevenueProjector(ledger: ledger, logger: TestDatabase.logger).catchUp()
      let identifiers = [Self.erased, "era-sub-1", "era-gems-1"]
      for id in identifiers { #expect(try await Self.rows(naming: id, in: storage) > 0, "\(id)") }
      #expect(
        try await storage.changes.newestChanges(
          of: Self.erased, offset: 0, limit: 100, consistency: .exact
        ).value.changes.count > 0)
      // Its subscription's status history (what windows and outage grants select) holds it.
      func historyAccounts() async throws -> Set<String> {
        let page = try await AccountLists(ledger: ledger).statusTransitions(
          StatusTransitionFilter(
            status: 1, from: Timestamp(milliseconds: 0),
            before: Timestamp(milliseconds: 4_000_000_000_000)), limit: 1000)
        return Set(page.rows.map(\.appAccountToken))
      }
      #expect(try await historyAccounts() == [Self.erased, Self.kept])
      let before = try await Self.log(storage)
      let notUnderstood = try await SupportQueries(ledger: ledger).notUnderstood().count

      // When the owner erases it.
      let receipt = try await AccountErasure(ledger: owner).erase(
        [Self.erased], reason: "GDPR Art. 17 request, ticket 4411", requestedBy: "dpo")

      // Then no row names it, the rows kept their places and hashes, one event was added.
      #expect(receipt.outcome == .erased)
      // The subscription (its transaction and a notification), the consumable, the debit and
      // the consent.
      #expect(receipt.erasedRows == 5 && receipt.erasedStreams == 4, "\(receipt)")
      // Its tombstones are erasures, not notifications the ledger did not understand.
      #expect(try await SupportQueries(ledger: ledger).notUnderstood().count == notUnderstood)
      for id in identifiers { #expect(try await Self.rows(naming: id, in: storage) == 0, "\(id)") }
      let after = try await Self.log(storage)
      #expect(after.count == before.count + 1)
      #expect(zip(before, after).allSatisfy { $0.position == $1.position && $0.hash == $1.hash })
      #expect(after.filter { $0.erasedBy == receipt.erasureId }.count == Int(receipt.erasedRows))
      // Nothing derived from it is left.
      #expect(try await ledger.entitlements(for: Self.erased).isEmpty)
      #expect(try await ledger.events(for: Self.erased).isEmpty)
      #expect(
        try await storage.changes.newestChanges(
          of: Self.erased, offset: 0, limit: 100, consistency: .exact
        ).value.changes.isEmpty)
      #expect(try await historyAccounts() == [Self.kept])
      let revenue = try await storage.revenue.revenueChains(after: .beginning, limit: 100)
      #expect(revenue.flatMap(\.timelines).map(\.originalTransactionId) == ["keep-sub-1"])
      // The other account is untouched.
      #expect(try await ledger.entitlements(for: Self.kept, at: F.t(50).date).count == 1)

      // The audit passes, counting the tombstones and checking the erasure's record.
      let audit = try await LedgerMaintenance(ledger: ledger).audit()
      #expect(audit.isConsistent, "\(audit.problems)")
      #expect(audit.eventsErased == Int(receipt.erasedRows))
      #expect(audit.erasuresChecked == 1)
      let erasures = try await AccountErasure(ledger: ledger).erasures()
      #expect(erasures.map(\.erasureId) == [receipt.erasureId])
      #expect(erasures.first?.isIntact == true)
      #expect(erasures.first?.recordedDigest == receipt.rowsDigest)
      #expect(try await AccountErasure(ledger: ledger).erasure(ofAccount: Self.erased) != nil)
      #expect(try await AccountErasure(ledger: ledger).erasure(ofAccount: Self.kept) == nil)

      // Erasing again changes nothing and names the erasure that did it.
      let again = try await AccountErasure(ledger: owner).erase(
        [Self.erased], reason: "again", requestedBy: "dpo")
      #expect(again.outcome == .alreadyErased && again.erasureId == receipt.erasureId)
      #expect(try await Self.log(storage).count == after.count)
    }
  }

  @Test(arguments: StorageKind.allCases)
  func laterDataIsQuarantinedOrAttachedAsTheErasureChose(_ kind: StorageKind) async throws {
    let store = Self.store()
    try await Self.withLedgers(kind) { storage, ledger, owner in
      try await Self.ingest(["era-sub-1", "keep-sub-1"], from: store, into: ledger)
      let erasure = AccountErasure(ledger: owner)
      _ = try await erasure.erase([Self.erased], reason: "account deleted", requestedBy: "support")
      _ = try await erasure.erase(
        [Self.kept], reason: "account deleted", requestedBy: "support", later: .attach)
      let rows = try await Self.log(storage).count

      // Apple renews both subscriptions afterwards, signed with the erased tokens.
      for (id, token, customer) in [
        ("era-sub-1", Self.erased, "cA"), ("keep-sub-1", Self.kept, "cB"),
      ] {
        store.put(
          F.transaction("\(id)-r", original: id, purchased: 65, expires: 95, token: token),
          customer: customer)
        try await Self.ingest(["\(id)-r"], from: store, into: ledger)
      }

      // Stored either way, attached to no account under quarantine, to the account again
      // under attach.
      #expect(try await Self.log(storage).count == rows + 2)
      #expect(try await ledger.events(for: Self.erased).isEmpty)
      #expect(try await ledger.entitlements(for: Self.erased, at: F.t(70).date).isEmpty)
      #expect(try await ledger.events(for: Self.kept).count == 1)
      #expect(try await ledger.entitlements(for: Self.kept, at: F.t(70).date).count == 1)
      #expect(try await storage.erasure.quarantinedAccountsIndexed() == 0)

      // Erasing the quarantined account again finds nothing held by it (the renewal is
      // attached to no account) and changes nothing; erasing the attached one again takes
      // what came since.
      let again = try await erasure.erase(
        [Self.erased], reason: "asked again", requestedBy: "support")
      #expect(again.outcome == .alreadyErased && again.erasedRows == 0)
      let second = try await erasure.erase(
        [Self.kept], reason: "account deleted again", requestedBy: "support")
      #expect(second.outcome == .erased && second.erasedRows == 1)
      let audit = try await LedgerMaintenance(ledger: ledger).audit()
      #expect(audit.isConsistent, "\(audit.problems)")
      #expect(audit.erasuresChecked == 3)
      #expect(try await erasure.erasures().allSatisfy(\.isIntact))
    }
  }

  @Test(arguments: StorageKind.allCases)
  func refusalsAreTypedAndChangeNothing(_ kind: StorageKind) async throws {
    let store = Self.store()
    try await Self.withLedgers(kind) { storage, ledger, owner in
      try await Self.ingest(["era-sub-1", "keep-sub-1"], from: store, into: ledger)
      // A purchase moved to another account is held by both: erased together or not at all.
      _ = try await ledger.link(
        appAccountToken: Self.kept, originalTransactionId: "era-sub-1", transfer: true)
      let rows = try await Self.log(storage)
      let erasure = AccountErasure(ledger: owner)
      let shared = await #expect(throws: LedgerError.self) {
        try await erasure.erase([Self.erased], reason: "GDPR", requestedBy: "dpo")
      }
      #expect(shared?.code == .sharedWithOtherAccounts)
      #expect(shared?.message.contains("erase those accounts in the same erasure") == true)
      let unknown = await #expect(throws: LedgerError.self) {
        try await erasure.erase([F.account(99)], reason: "GDPR", requestedBy: "dpo")
      }
      #expect(unknown?.code == .notFound)
      #expect(try await Self.log(storage) == rows)
      #expect(try await ledger.events(for: Self.erased).count > 0)
      #expect(try await erasure.erasures().isEmpty)

      let together = try await erasure.erase(
        [Self.erased, Self.kept], reason: "GDPR", requestedBy: "dpo")
      #expect(together.outcome == .erased)
      for id in [Self.erased, Self.kept, "era-sub-1", "keep-sub-1"] {
        #expect(try await Self.rows(naming: id, in: storage) == 0, "\(id)")
      }
      #expect(try await LedgerMaintenance(ledger: ledger).audit().isConsistent)
    }
  }
}
