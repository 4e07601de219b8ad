import Foundation
import PostgresNIO
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// The change feed on a real database: changes appended by the projector with gap-free
/// positions, the clock's changes on time, and the feed equal to a derivation from the log.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct ChangeFeedTests {
  typealias F = LedgerFixtures
  static let token = "00000000-0000-4000-8000-000000000001"

  /// Fixture days for `seconds` from now.
  static func days(fromNowBy seconds: Double) -> Double {
    (Date().timeIntervalSince1970 * 1000 + seconds * 1000 - Double(F.epoch)) / Double(F.day)
  }

  func withLedger(_ body: @Sendable (Ledger, PostgresClient) async throws -> Void) async throws {
    try await TestDatabase.withMigrated { database in
      try await database.asWriter { client in
        try await body(AccountViewTests.ledger(client), client)
      }
    }
  }

  static func comparable(_ records: [ChangeRecord]) -> [DerivedChange] {
    records.map {
      DerivedChange(
        $0.change, occurredAt: $0.occurredAt, effectiveAt: $0.effectiveAt, cause: $0.cause)
    }
  }

  /// A purchase grants; two seconds later the period ends with no event, and the feed says
  /// so within a second of that instant. The feed is what the log derives.
  @Test func theClockEndsAPeriodWithinASecond() async throws {
    try await withLedger { ledger, _ in
      let expires = Self.days(fromNowBy: 2)
      try await AccountViewTests.subscribe(
        ledger, uuid: "c0000000-0000-4000-8000-000000000001", id: "9001",
        from: Self.days(fromNowBy: -86_400), to: expires)
      let projector = AccountProjector(ledger: ledger, logger: TestDatabase.logger)
      let running = Task { await projector.run() }
      defer { running.cancel() }
      var seen: [ChangeRecord] = []
      var arrivals: [Date] = []
      for try await record in ChangeFeedReader(ledger: ledger).sequence(after: 0) {
        seen.append(record)
        arrivals.append(Date())
        if record.change.kind == .subscriptionExpired { break }
      }
      try #require(seen.count == 6)
      #expect(
        seen.map(\.change.kind) == [
          .entitlementGranted, .subscriptionStatusChanged, .purchase, .entitlementRevoked,
          .subscriptionStatusChanged, .subscriptionExpired,
        ])
      #expect(seen.map(\.position) == [1, 2, 3, 4, 5, 6])
      #expect(seen.map(\.ordinal) == [0, 1, 2, 3, 4, 5])
      #expect(seen[4].change.old == "1" && seen[4].change.new == "2")
      #expect(seen[3].cause == nil && seen[0].cause != nil && seen[5].cause == nil)
      #expect(seen[2].change.money?.transactionId == "9001")
      #expect(seen[5].change.money?.periodEnd == seen[3].occurredAt)
      let end = Timestamp(milliseconds: F.epoch + Int64(expires * Double(F.day)))
      #expect(abs(seen[3].occurredAt.milliseconds - end.milliseconds) <= 1)
      let delay = arrivals[3].timeIntervalSince1970 - Double(end.milliseconds) / 1000
      #expect(delay < 1.0, "the clock's change arrived \(delay) s after its instant")
      let derived = try await ChangeFeedReader(ledger: ledger).derivedFromLog(
        of: Self.token, through: Date())
      #expect(derived == Self.comparable(seen))
      #expect(Set(seen.map(\.id)).count == 6)
      #expect(seen[0].id == ChangeRecord.id(account: Self.token, ordinal: 0))
    }
  }

  /// Projectors deriving the same accounts at once append each change once, with positions
  /// 1…N and no gap; the feed answers per account, and refuses a position beyond it.
  @Test func concurrentProjectorsAppendEachChangeOnce() async throws {
    try await withLedger { ledger, _ in
      for index in 1...6 {
        try await AccountViewTests.subscribe(
          ledger, uuid: "c1000000-0000-4000-8000-00000000000\(index)", id: "91\(index)",
          original: "91\(index)", token: F.account(index), from: Self.days(fromNowBy: -86_400),
          to: Self.days(fromNowBy: 86_400 * 30))
      }
      let projectors = (0..<3).map { _ in
        AccountProjector(ledger: ledger, batchSize: 2, concurrency: 2, logger: TestDatabase.logger)
      }
      let now = Date()
      try await withThrowingTaskGroup(of: Void.self) { group in
        for projector in projectors { group.addTask { try await projector.catchUp(now: now) } }
        try await group.waitForAll()
      }
      let all = try await ChangeFeedReader(ledger: ledger).changes(after: 0, limit: 1000)
      // Each account: granted, status none → 1 and the purchase, at its event.
      #expect(all.count == 18)
      #expect(all.map(\.position) == Array(1...18))
      #expect(try await ChangeFeedReader(ledger: ledger).head() == 18)
      for index in 1...6 {
        let mine = try await ChangeFeedReader(ledger: ledger).changes(
          after: 0, account: F.account(index))
        #expect(mine.map(\.ordinal) == [0, 1, 2])
        let derived = try await ChangeFeedReader(ledger: ledger).derivedFromLog(
          of: F.account(index), through: now)
        #expect(derived == Self.comparable(mine))
      }
      let beyond = await #expect(throws: LedgerError.self) {
        try await ChangeFeedReader(ledger: ledger).changes(after: 19)
      }
      #expect(beyond?.code == .positionBeyondFeed)
      #expect(try await ChangeFeedReader(ledger: ledger).changes(after: 18).isEmpty)
      await #expect(throws: LedgerError.self) {
        try await ChangeFeedReader(ledger: ledger).changes(after: 0, limit: 0)
      }
    }
  }

  /// A purchase without a token joins an account by a link: its changes are the account's at
  /// the link, after the account's own; a derivation from the log agrees; the audit compares
  /// every stored change and finds one altered behind the ledger's back, once.
  @Test func aLinkedPurchaseChangesTheAccountAtTheLinkAndTheAuditChecksTheFeed() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.asAdmin { admin in
        try await database.asWriter { client in
          let ledger = try AccountViewTests.ledger(client)
          let signed = try SignedFixtures(pki: AccountViewTests.pki)
          let now = Self.days(fromNowBy: 0)
          let gems = F.transaction(
            "9100", product: "gems.100", type: .consumable, purchased: now - 1, token: Self.token)
          _ = try await ledger.ingest(signedTransaction: try signed.transaction(gems))
          let untokened = F.transaction(
            "9200", purchased: now - 1, expires: now + 30, token: nil)
          _ = try await ledger.ingest(
            notification: try signed.notification(
              .subscribed, .initialBuy, uuid: "c2000000-0000-4000-8000-000000000001",
              transaction: untokened))
          let projector = AccountProjector(ledger: ledger, logger: TestDatabase.logger)
          try await projector.catchUp()
          #expect(
            try await ChangeFeedReader(ledger: ledger).changes(after: 0).map(\.change.kind) == [
              .entitlementGranted, .balanceChanged, .purchase,
            ])
          _ = try await ledger.link(appAccountToken: Self.token, originalTransactionId: "9200")
          try await projector.catchUp()
          let mine = try await ChangeFeedReader(ledger: ledger).changes(
            after: 0, account: Self.token)
          #expect(
            mine.map(\.change.kind) == [
              .entitlementGranted, .balanceChanged, .purchase, .entitlementGranted,
              .subscriptionStatusChanged, .purchase,
            ])
          #expect(mine[3].change.subject == "pro" && mine[4].change.new == "1")
          #expect(mine[3].occurredAt > mine[2].occurredAt)
          // The linked purchase's money comes with it, at the link.
          #expect(mine[5].change.subject == "9200" && mine[5].occurredAt == mine[3].occurredAt)
          let derived = try await ChangeFeedReader(ledger: ledger).derivedFromLog(
            of: Self.token, through: Date())
          #expect(derived == Self.comparable(mine))

          let clean = try await LedgerMaintenance(ledger: ledger).audit()
          #expect(clean.isConsistent && clean.changesCompared == 6)
          try await admin.execute(
            """
            UPDATE storeledger.changes SET new_value = '999'
            WHERE app_account_token = \(Self.token) AND ordinal = 0
            """, logger: TestDatabase.logger)
          let report = try await LedgerMaintenance(ledger: ledger).audit()
          #expect(report.problems.filter { $0.kind == .changeFeed }.count == 1)
          #expect(report.problems.first?.subject == Self.token)
        }
      }
    }
  }
}
