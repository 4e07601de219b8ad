import Foundation
import PostgresNIO
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

@testable import StoreLedger

/// The in-process view cache answers without a round trip only while this process's projector
/// follows the feed, never hides an ingest this process made, and stays within its capacity.
@Suite struct AccountViewCacheTests {
  typealias F = LedgerFixtures
  static let token = "00000000-0000-4000-8000-000000000001"

  static func entry(_ entitlement: String, until: Double? = nil) -> AccountViewCache.Entry {
    let json = """
      {"appAccountToken": "\(token)", "entitlement": "\(entitlement)", "active": true,
       "expiresDate": null, "source": "1000", "rule": "E1"}
      """
    return AccountViewCache.Entry(
      AccountSummary(
        entitlements: [try! JSONDecoder().decode(EntitlementView.self, from: Data(json.utf8))],
        subscriptions: [], consumables: []),
      interval: StableInterval(from: F.t(0), until: until.map(F.t)))
  }

  /// Days from now, in the fixtures' day units (the live test asks about the present).
  static func days(_ count: Double) -> Double {
    (Date().timeIntervalSince1970 * 1000 - Double(F.epoch)) / Double(F.day) + count
  }

  @Test func itAnswersOnlyWhileFollowingTheFeedAndInsideTheViewsInterval() {
    let cache = AccountViewCache(capacity: 10)
    cache.store([(Self.token, Self.entry("pro", until: 30))], readAt: cache.readBegins())
    #expect(cache.entry(for: Self.token, at: F.t(10)) == nil, "no projector follows the feed")
    cache.noteFeed(following: true)
    cache.store([(Self.token, Self.entry("pro", until: 30))], readAt: cache.readBegins())
    #expect(
      cache.entry(for: Self.token, at: F.t(10))?.summary.entitlements.first?.entitlement == "pro")
    #expect(cache.entry(for: Self.token, at: F.t(30)) == nil, "the view ends at 30")
    cache.noteFeed(following: true, lagSeconds: 2)
    #expect(cache.entry(for: Self.token, at: F.t(10)) == nil, "the projector is too far behind")
  }

  /// A view read before a local ingest named the account is not put back after it.
  @Test func aViewReadBeforeALocalIngestIsNotStored() {
    let cache = AccountViewCache(capacity: 10)
    cache.noteFeed(following: true)
    let readAt = cache.readBegins()
    cache.invalidate([Self.token])
    cache.store([(Self.token, Self.entry("stale"))], readAt: readAt)
    #expect(cache.entry(for: Self.token, at: F.t(1)) == nil)
    cache.store([(Self.token, Self.entry("fresh"))], readAt: cache.readBegins())
    #expect(
      cache.entry(for: Self.token, at: F.t(1))?.summary.entitlements.first?.entitlement == "fresh")
  }

  /// A view read earlier, stored late, does not replace one read after it (the projector's,
  /// after an ingest of another process).
  @Test func anOlderReadDoesNotReplaceANewerOne() {
    let cache = AccountViewCache(capacity: 10)
    cache.noteFeed(following: true)
    let early = cache.readBegins()
    cache.store([(Self.token, Self.entry("newer"))], readAt: cache.readBegins())
    cache.store([(Self.token, Self.entry("older"))], readAt: early)
    #expect(
      cache.entry(for: Self.token, at: F.t(1))?.summary.entitlements.first?.entitlement == "newer")
  }

  @Test func itKeepsWithinItsCapacity() {
    let cache = AccountViewCache(capacity: 100)
    cache.noteFeed(following: true)
    for account in 0..<1_000 {
      cache.store([(F.account(account), Self.entry("pro"))], readAt: cache.readBegins())
      if account % 3 == 0 { cache.invalidate([F.account(10_000 + account)]) }
    }
    #expect(cache.count <= 100)
    #expect(cache.entry(for: F.account(999), at: F.t(1)) != nil, "the newest views stay")
  }

  /// A purchase made without a token and linked to the account, in memory: a refund Apple
  /// sends for it names no account, yet this process's next answer has it. The projector,
  /// woken by nothing and polling once a minute, cannot be what brings it.
  @Test(.enabled(if: TestDatabase.shouldRun))
  func aRefundOfALinkedPurchaseShowsAtOnce() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.asWriter { client in
        let ledger = try AccountViewTests.ledger(client)
        let signed = SignedFixtures(pki: AccountViewTests.pki)
        let bought = F.transaction(
          "1200", purchased: Self.days(-1), expires: Self.days(30), token: nil)
        _ = try await ledger.ingest(signedTransaction: try signed.transaction(bought))
        _ = try await ledger.link(appAccountToken: Self.token, originalTransactionId: "1200")
        let projector = AccountProjector(
          ledger: ledger, pollInterval: .seconds(60), logger: TestDatabase.logger)
        let running = Task { await projector.run() }
        defer { running.cancel() }
        let deadline = ContinuousClock.now + .seconds(20)
        while ledger.views.viewCache?.entry(for: Self.token, at: Timestamp(Date())) == nil,
          ContinuousClock.now < deadline
        {
          try await Task.sleep(for: .milliseconds(20))
        }
        #expect(ledger.views.viewCache?.entry(for: Self.token, at: Timestamp(Date())) != nil)
        #expect(try await ledger.entitlements(for: Self.token).map(\.active) == [true])
        let refunded = F.transaction(
          "1200", purchased: Self.days(-1), expires: Self.days(30), signed: Self.days(0),
          token: nil, revoked: Self.days(0))
        _ = try await ledger.ingest(
          notification: try signed.notification(.refund, uuid: "n-linked", transaction: refunded))
        #expect(try await ledger.entitlements(for: Self.token).map(\.active) == [false])
        #expect(projector.progress.eventsProjected == 2, "the projector has not seen the refund")
      }
    }
  }

  /// Through a real database and a running projector: answers come from memory (a row edited
  /// behind the ledger's back does not show), an ingest of this process shows at once, and
  /// once the projector stops the cache answers nothing.
  @Test(.enabled(if: TestDatabase.shouldRun))
  func aRunningProjectorFillsItAndLocalIngestsShowAtOnce() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.asAdmin { admin in
        try await database.asWriter { client in
          let signal = WakeUpSignal()
          let ledger = try AccountViewTests.ledger(client, wakeUp: signal)
          let projector = AccountProjector(
            ledger: ledger, wakeUp: signal, pollInterval: .milliseconds(50),
            logger: TestDatabase.logger)
          let running = Task { await projector.run() }
          let bought = F.transaction(
            "1000", purchased: Self.days(-1), expires: Self.days(30), token: Self.token)
          _ = try await ledger.ingest(
            notification: try SignedFixtures(pki: AccountViewTests.pki).notification(
              .subscribed, .initialBuy, uuid: "n-1", transaction: bought))
          let deadline = ContinuousClock.now + .seconds(20)
          while ledger.views.viewCache?.entry(for: Self.token, at: Timestamp(Date())) == nil,
            ContinuousClock.now < deadline
          {
            try await Task.sleep(for: .milliseconds(20))
          }
          try await admin.execute(
            "UPDATE storeledger.account_views SET view = jsonb_set(view, '{entitlements}', '[]')",
            logger: TestDatabase.logger)
          #expect(try await ledger.entitlements(for: Self.token).map(\.entitlement) == ["pro"])
          #expect(
            try await ledger.summaryJSON(.entitlements, for: Self.token).readableBytes > 2,
            "answered from memory, not from the edited row")

          let refunded = F.transaction(
            "1000", purchased: Self.days(-1), expires: Self.days(30), signed: Self.days(0),
            token: Self.token, revoked: Self.days(0))
          _ = try await ledger.ingest(
            notification: try SignedFixtures(pki: AccountViewTests.pki).notification(
              .refund, uuid: "n-2", transaction: refunded))
          #expect(
            try await ledger.entitlements(for: Self.token).map(\.active) == [false],
            "this process's ingest shows at once")

          // The projector stores the refund's view before it stops: the stored row is then
          // current, and only the cache's being off decides what answers below.
          let stored = ContinuousClock.now + .seconds(20)
          while ContinuousClock.now < stored {
            let slice = try await ledger.storage.accounts.storedView(
              of: Self.token, part: nil, consistency: .exact
            ).value
            if let slice, slice.projectedChanges == slice.changes { break }
            try await Task.sleep(for: .milliseconds(20))
          }
          running.cancel()
          await running.value
          try await admin.execute(
            "UPDATE storeledger.account_views SET view = jsonb_set(view, '{entitlements}', '[]')",
            logger: TestDatabase.logger)
          #expect(
            try await ledger.entitlements(for: Self.token).isEmpty,
            "without a projector following the feed, the stored row answers")
        }
      }
    }
  }
}
