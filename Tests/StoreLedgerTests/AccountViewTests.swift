import AppStoreVerification
import Foundation
import PostgresNIO
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// The per-account read model: served while current, bypassed when an ingest has outdated
/// it or its stable interval has ended, replaced by the projector, rebuilt from the log.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct AccountViewTests {
  typealias F = LedgerFixtures
  static let pki = LedgerTests.pki
  static let catalog = LedgerTests.catalog

  struct Row: Sendable, Equatable {
    var changes: Int64
    var projectedChanges: Int64
    var stableFrom: Int64?
    var stableUntil: Int64?
  }

  func withLedger(
    catalog: ProductCatalog = catalog,
    _ body: @Sendable (Ledger, PostgresClient, PostgresClient) async throws -> Void
  ) async throws {
    try await TestDatabase.withMigrated { database in
      try await database.asAdmin { admin in
        try await database.asWriter { client in
          try await body(Self.ledger(client, catalog: catalog), admin, client)
        }
      }
    }
  }

  static func ledger(
    _ client: PostgresClient, catalog: ProductCatalog = catalog, wakeUp: WakeUpSignal? = nil
  ) throws -> Ledger {
    try Ledger(
      client: client,
      configuration: LedgerConfiguration(
        bundleId: "com.example.app", environments: [.sandbox], trustedRoots: pki.trustedRoots,
        catalog: catalog),
      logger: TestDatabase.logger, wakeUp: wakeUp)
  }

  static func row(_ token: String, on admin: PostgresClient) async throws -> Row? {
    try await admin.query(
      """
      SELECT changes, projected_changes, stable_from_ms, stable_until_ms
      FROM storeledger.account_views WHERE app_account_token = \(token)
      """, logger: TestDatabase.logger
    ) { rows in
      var row: Row?
      for try await (changes, projected, from, until) in rows.decode(
        (Int64, Int64, Int64?, Int64?).self)
      {
        row = Row(
          changes: changes, projectedChanges: projected, stableFrom: from, stableUntil: until)
      }
      return row
    }
  }

  static func subscribe(
    _ ledger: Ledger, uuid: String, id: String, original: String = "1000",
    token: String = "00000000-0000-4000-8000-000000000001",
    from start: Double, to end: Double, type: NotificationType = .subscribed
  ) async throws {
    let transaction = F.transaction(
      id, original: original, purchased: start, expires: end, token: token)
    _ = try await ledger.ingest(
      notification: try SignedFixtures(pki: pki).notification(
        type, type == .subscribed ? .initialBuy : nil, uuid: uuid, transaction: transaction))
  }

  /// Answers that really come from the stored row: an edit made to the row behind the
  /// ledger's back shows up, until an ingest outdates the row.
  @Test func aCurrentViewIsServedAndAnIngestOutdatesIt() async throws {
    try await withLedger { ledger, admin, _ in
      try await Self.subscribe(ledger, uuid: "n-1", id: "1000", from: 0, to: 30)
      #expect(
        try await Self.row("00000000-0000-4000-8000-000000000001", on: admin)
          == Row(changes: 1, projectedChanges: -1))
      #expect(
        try await ledger.entitlements(for: "00000000-0000-4000-8000-000000000001", at: F.t(10).date)
          .map(\.active) == [true])

      let projected = try await AccountProjector(ledger: ledger, logger: TestDatabase.logger)
        .catchUp(now: F.t(10).date)
      #expect(projected == 1)
      #expect(
        try await Self.row("00000000-0000-4000-8000-000000000001", on: admin)
          == Row(
            changes: 1, projectedChanges: 1, stableFrom: F.t(0).milliseconds,
            stableUntil: F.t(30).milliseconds))

      try await admin.execute(
        """
        UPDATE storeledger.account_views
        SET view = jsonb_set(view, '{entitlements}', '[]') WHERE app_account_token = '00000000-0000-4000-8000-000000000001'
        """, logger: TestDatabase.logger)
      #expect(
        try await ledger.entitlements(for: "00000000-0000-4000-8000-000000000001", at: F.t(10).date)
          .isEmpty)
      // Outside the stable interval the row is not used.
      #expect(
        try await ledger.entitlements(for: "00000000-0000-4000-8000-000000000001", at: F.t(31).date)
          .map(\.active) == [false])

      try await Self.subscribe(
        ledger, uuid: "n-2", id: "1001", from: 30, to: 60, type: .didRenew)
      #expect(try await Self.row("00000000-0000-4000-8000-000000000001", on: admin)?.changes == 2)
      #expect(
        try await ledger.entitlements(for: "00000000-0000-4000-8000-000000000001", at: F.t(10).date)
          .map(\.active) == [true])
      #expect(
        try await ledger.entitlements(for: "00000000-0000-4000-8000-000000000001", at: F.t(45).date)
          .map(\.active) == [true])
    }
  }

  /// One layout per answer: a part of the account API is the same bytes whether a fold or
  /// the stored view (read back from `jsonb`) served it (key order and spacing once differed).
  @Test func aFoldAndTheStoredViewAnswerTheSameBytes() async throws {
    try await withLedger { ledger, admin, _ in
      let token = "00000000-0000-4000-8000-000000000001"
      try await Self.subscribe(ledger, uuid: "n-1", id: "1000", token: token, from: 0, to: 30)
      try await Self.subscribe(
        ledger, uuid: "n-2", id: "1001", token: token, from: 30, to: 60, type: .didRenew)
      var folded: [AccountViewSlice.Part: [UInt8]] = [:]
      for part in AccountViewSlice.Part.allCases {
        folded[part] = Array(
          try await ledger.summaryJSON(part, for: token, at: F.t(40).date, consistency: .exact)
            .readableBytesView)
      }
      #expect(folded[.entitlements]?.count ?? 0 > 20, "an entitlement with its members")
      _ = try await AccountProjector(ledger: ledger, logger: TestDatabase.logger).catchUp(
        now: F.t(40).date)
      // The stored row is current: what follows is served from it.
      let row = try #require(try await Self.row(token, on: admin))
      #expect(row.projectedChanges == row.changes && row.changes == 2, "\(row)")
      for part in AccountViewSlice.Part.allCases {
        let stored = Array(
          try await ledger.summaryJSON(part, for: token, at: F.t(40).date, consistency: .exact)
            .readableBytesView)
        #expect(
          stored == folded[part],
          "\(part): \(String(decoding: stored, as: UTF8.self)) against \(String(decoding: folded[part] ?? [], as: UTF8.self))"
        )
      }
    }
  }

  @Test func aDuplicateLeavesTheViewCurrent() async throws {
    try await withLedger { ledger, admin, _ in
      try await Self.subscribe(ledger, uuid: "n-1", id: "1000", from: 0, to: 30)
      try await AccountProjector(ledger: ledger, logger: TestDatabase.logger).catchUp(
        now: F.t(1).date)
      try await Self.subscribe(ledger, uuid: "n-1", id: "1000", from: 0, to: 30)
      let row = try await Self.row("00000000-0000-4000-8000-000000000001", on: admin)
      #expect(row?.changes == 1 && row?.projectedChanges == 1)
    }
  }

  /// A purchase made without a token and linked to an account: a refund Apple sends for it
  /// names no account, yet the account's next answer (before any projector runs) has it.
  @Test func aWriteToALinkedChainOutdatesTheHoldersView() async throws {
    try await withLedger { ledger, admin, _ in
      let token = "00000000-0000-4000-8000-0000000000b1"
      let signed = SignedFixtures(pki: Self.pki)
      _ = try await ledger.ingest(
        signedTransaction: try signed.transaction(
          F.transaction("5000", purchased: 0, expires: 30, token: nil)))
      _ = try await ledger.link(
        appAccountToken: token, originalTransactionId: "5000", at: F.t(1).date)
      try await AccountProjector(ledger: ledger, logger: TestDatabase.logger).catchUp(
        now: F.t(2).date)
      #expect(try await ledger.entitlements(for: token, at: F.t(3).date).map(\.active) == [true])
      let before = try await Self.row(token, on: admin)
      #expect(before?.changes == before?.projectedChanges)
      _ = try await ledger.ingest(
        notification: try signed.notification(
          .refund, uuid: "b1-refund",
          transaction: F.transaction(
            "5000", purchased: 0, expires: 30, signed: 2, token: nil, revoked: 2,
            revocationType: .refundFull)))
      #expect(try await ledger.entitlements(for: token, at: F.t(3).date).map(\.active) != [true])
      let after = try await Self.row(token, on: admin)
      #expect(after?.changes != after?.projectedChanges)
    }
  }

  @Test func viewsWhoseIntervalEndedAreProjectedAgain() async throws {
    try await withLedger { ledger, admin, _ in
      try await Self.subscribe(ledger, uuid: "n-1", id: "1000", from: 0, to: 30)
      let projector = AccountProjector(ledger: ledger, logger: TestDatabase.logger)
      try await projector.catchUp(now: F.t(10).date)
      #expect(
        try await Self.row("00000000-0000-4000-8000-000000000001", on: admin)?.stableUntil
          == F.t(30).milliseconds)
      #expect(try await projector.catchUp(now: F.t(45).date) == 0)
      let row = try await Self.row("00000000-0000-4000-8000-000000000001", on: admin)
      #expect(row?.stableFrom == F.t(30).milliseconds)
      #expect(row?.stableUntil == nil)
      #expect(projector.progress.accountsProjected == 2)
      #expect(
        try await ledger.entitlements(for: "00000000-0000-4000-8000-000000000001", at: F.t(45).date)
          .map(\.active) == [false])
    }
  }

  @Test func aViewFromAnotherCatalogIsNotServedAndGetsReplaced() async throws {
    try await withLedger { ledger, _, client in
      try await Self.subscribe(ledger, uuid: "n-1", id: "1000", from: 0, to: 30)
      try await AccountProjector(ledger: ledger, logger: TestDatabase.logger).catchUp(
        now: F.t(1).date)
      let renamed = ProductCatalog(products: ["pro.monthly": .init(entitlements: ["premium"])])
      let other = try Self.ledger(client, catalog: renamed)
      #expect(
        try await other.entitlements(for: "00000000-0000-4000-8000-000000000001", at: F.t(10).date)
          .map(\.entitlement) == [
            "premium"
          ])
      let projector = AccountProjector(ledger: other, logger: TestDatabase.logger)
      #expect(try await projector.catchUp(now: F.t(10).date) == 0)
      #expect(projector.progress.accountsProjected == 1)
      #expect(
        try await other.entitlements(for: "00000000-0000-4000-8000-000000000001", at: F.t(10).date)
          .map(\.entitlement) == [
            "premium"
          ])
      #expect(
        try await ledger.entitlements(for: "00000000-0000-4000-8000-000000000001", at: F.t(10).date)
          .map(\.entitlement) == ["pro"]
      )
    }
  }

  @Test func rebuildProjectsEveryAccountFromTheLog() async throws {
    try await withLedger { ledger, admin, _ in
      for account in 1...3 {
        try await Self.subscribe(
          ledger, uuid: "n-\(account)", id: "\(account)000", original: "\(account)000",
          token: LedgerFixtures.account(account), from: Double(account), to: 30)
      }
      try await AccountProjector(ledger: ledger, logger: TestDatabase.logger).catchUp(
        now: F.t(5).date)
      try await admin.execute(
        "DELETE FROM storeledger.account_views WHERE app_account_token = '00000000-0000-4000-8000-000000000001'",
        logger: TestDatabase.logger)
      try await admin.execute(
        "UPDATE storeledger.account_views SET view = '{}' WHERE app_account_token = '00000000-0000-4000-8000-000000000002'",
        logger: TestDatabase.logger)
      #expect(try await LedgerMaintenance(ledger: ledger).rebuildAccountViews().accounts == 3)
      for account in 1...3 {
        let token = LedgerFixtures.account(account)
        let row = try await Self.row(token, on: admin)
        #expect(row != nil && row?.changes == row?.projectedChanges)
        let now = Date()
        let folded = AccountSummary(
          try await ledger.view(for: token), for: token, at: Timestamp(now))
        #expect(try await ledger.summary(for: token, at: now) == folded)
        #expect(folded.subscriptions.count == 1)
      }
    }
  }

  @Test func aRunningProjectorFollowsTheFeedAndMovesItsCheckpoint() async throws {
    try await TestDatabase.withMigrated { database in
      try await database.asAdmin { admin in
        try await database.asWriter { client in
          let signal = WakeUpSignal()
          let ledger = try Self.ledger(client, wakeUp: signal)
          let projector = AccountProjector(
            ledger: ledger, wakeUp: signal, pollInterval: .seconds(30), logger: TestDatabase.logger)
          let running = Task { await projector.run() }
          defer { running.cancel() }
          try await Self.subscribe(ledger, uuid: "n-1", id: "1000", from: 0, to: 30)
          try await Self.subscribe(
            ledger, uuid: "n-2", id: "2000", original: "2000",
            token: "00000000-0000-4000-8000-000000000002", from: 0, to: 30)
          let deadline = ContinuousClock.now + .seconds(20)
          while projector.progress.eventsProjected < 2, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
          }
          #expect(projector.progress.eventsProjected == 2)
          #expect(
            try await Self.row("00000000-0000-4000-8000-000000000002", on: admin)?.projectedChanges
              == 1)
          // Written once the projector finds nothing more to read (or once a second).
          let store = EventStore(client: client, logger: TestDatabase.logger)
          var checkpoint = try await store.checkpoint(AccountProjector.checkpointName)
          while checkpoint != projector.progress.position, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            checkpoint = try await store.checkpoint(AccountProjector.checkpointName)
          }
          #expect(checkpoint != nil && checkpoint == projector.progress.position)
          running.cancel()
          await running.value
        }
      }
    }
  }
}

/// A database indexed before the read model existed: the migration gives every known account
/// a row that is not current, and the projector fills them from the log.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct AccountViewMigrationTests {
  typealias F = LedgerFixtures

  @Test func accountsIndexedBeforeTheReadModelGetViews() async throws {
    let beforeViews = Array(SchemaMigration.all.prefix { $0.version < 7 })
    try await TestDatabase.withMigrated(to: beforeViews) { database in
      // Written as the release of that schema wrote it: through its own append function.
      try await database.asWriter { client in
        let transaction = SignedFixtures.sandbox(
          F.transaction(
            "1000", purchased: 0, expires: 30, token: "00000000-0000-4000-8000-0000000000a0"))
        let payload = String(
          decoding: try JSONEncoder().encode(["transaction": transaction]), as: UTF8.self)
        let (token, stream) = ("00000000-0000-4000-8000-0000000000a0", "sub:Sandbox:1000")
        _ = try await client.query(
          """
          SELECT * FROM storeledger.append_events_indexed(
            \(stream), 'any', 0, ARRAY[\(UUID())]::uuid[], ARRAY['tx:old'],
            ARRAY['appstore.transaction.v1'], ARRAY[''], ARRAY[-1]::bigint[],
            ARRAY[\(payload)]::jsonb[], ARRAY[''], ARRAY['{}']::jsonb[], ARRAY[\(token)],
            ARRAY[\(stream)])
          """, logger: TestDatabase.logger)
      }
      try await database.asAdmin { client in
        _ = try await SchemaMigrator(client: client, logger: TestDatabase.logger).migrate()
      }
      try await database.asAdmin { admin in
        #expect(
          try await AccountViewTests.row("00000000-0000-4000-8000-0000000000a0", on: admin)
            == AccountViewTests.Row(changes: 1, projectedChanges: -1))
        try await database.asWriter { client in
          let ledger = try AccountViewTests.ledger(client)
          try await AccountProjector(ledger: ledger, logger: TestDatabase.logger)
            .catchUp(now: F.t(10).date)
          let row = try await AccountViewTests.row(
            "00000000-0000-4000-8000-0000000000a0", on: admin)
          #expect(row?.projectedChanges == 1)
          #expect(
            try await ledger.entitlements(
              for: "00000000-0000-4000-8000-0000000000a0", at: F.t(10).date
            ).map(\.active) == [true]
          )
        }
      }
    }
  }
}
