import AppStoreServerAPI
import AppStoreSimulator
import AppStoreVerification
import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

@testable import StoreLedger

/// Erasure on a real PostgreSQL: an account with a subscription, consumables and a debit, a
/// refund request answered, a recorded consent, an order looked up, changes and revenue rows
/// is erased; afterwards neither its token nor any of its identifiers is in any column of any
/// table, while the audit and a checkpoint signed before the erasure still pass.
@Suite(.serialized, .enabled(if: TestDatabase.shouldRun)) struct AccountErasureTests {
  typealias H = SimulatedAppStoreHarness
  typealias F = LedgerFixtures
  static let erased = F.account(31)
  static let kept = F.account(32)
  static let catalog = ProductCatalog(products: [
    "gems": .init(entitlements: ["gems"], units: 10, sampleContentProvided: true)
  ])
  static let logger = TestDatabase.logger

  static func store() -> SimulatedAppStore {
    let store = SimulatedAppStore(
      app: SimulatedApp(
        bundleId: "com.example.app", appAppleId: 1_234_567_890, environment: .production),
      signer: H.pki, now: F.t(40))
    store.put(F.transaction("era-sub-1", purchased: 35, expires: 65, token: erased), customer: "cA")
    store.put(
      F.transaction(
        "era-gems-1", product: "gems", type: .consumable, purchased: 36, token: erased,
        quantity: 2),
      customer: "cA")
    store.put(F.transaction("keep-sub-1", purchased: 35, expires: 65, token: kept), customer: "cB")
    return store
  }

  /// A Production ledger on `client` (the writer's, or the superuser's for erasing).
  static func ledger(_ client: PostgresClient) throws -> Ledger {
    try Ledger(
      client: client,
      configuration: LedgerConfiguration(
        bundleId: "com.example.app", appAppleId: 1_234_567_890, environments: [.production],
        trustedRoots: H.pki.trustedRoots, catalog: catalog),
      logger: logger)
  }

  /// The writer's ledger (what the server runs as) and the superuser's (who may erase).
  static func withLedgers(
    _ body: @Sendable (Ledger, Ledger, TestDatabase) async throws -> Void
  ) async throws {
    try await TestDatabase.withMigrated { database in
      try await database.asWriter { writer in
        try await database.asAdmin { admin in
          try await body(try ledger(writer), try ledger(admin), database)
        }
      }
    }
  }

  /// Where `text` occurs in the database: every column (but bytes) of every table of
  /// StoreLedger's schemas, as `schema.table.column`.
  static func occurrences(of text: String, in database: TestDatabase) async throws -> [String] {
    try await database.asAdmin { client in
      try await client.query(
        """
        SELECT c.table_schema || '.' || c.table_name || '.' || c.column_name
        FROM information_schema.columns c
        JOIN information_schema.tables t
          ON t.table_schema = c.table_schema AND t.table_name = c.table_name
        WHERE c.table_schema IN ('storeledger', 'storeledger_analytics')
          AND t.table_type = 'BASE TABLE' AND c.data_type <> 'bytea'
          AND (xpath('/row/n/text()', query_to_xml(format(
            'SELECT count(*) AS n FROM %I.%I WHERE %I::text LIKE %L',
            c.table_schema, c.table_name, c.column_name, '%' || \(text) || '%'),
            false, true, '')))[1]::text::int > 0
        ORDER BY 1
        """, logger: logger
      ) { rows in
        var found: [String] = []
        for try await place in rows.decode(String.self) { found.append(place) }
        return found
      }
    }
  }

  /// The planner's statistics of StoreLedger's schemas that quote `text`, as
  /// `schema.table.column` (most common values, histogram bounds, most common elements).
  static func statistics(quoting text: String, in database: TestDatabase) async throws
    -> [String]
  {
    try await database.asAdmin { client in
      try await client.query(
        """
        SELECT schemaname || '.' || tablename || '.' || attname FROM pg_stats
        WHERE schemaname IN ('storeledger', 'storeledger_analytics')
          AND concat(most_common_vals::text, histogram_bounds::text, most_common_elems::text)
            LIKE '%' || \(text) || '%'
        ORDER BY 1
        """, logger: logger
      ) { rows in
        var found: [String] = []
        for try await place in rows.decode(String.self) { found.append(place) }
        return found
      }
    }
  }

  /// Samples every table of StoreLedger's schemas, as autovacuum would after enough writes.
  static func analyze(_ database: TestDatabase) async throws {
    try await database.asAdmin { client in
      try await client.execute("ANALYZE", logger: logger)
    }
  }

  /// One subscription for each account.
  static func subscribeBoth(_ ledger: Ledger, _ store: SimulatedAppStore) async throws {
    for id in ["era-sub-1", "keep-sub-1"] {
      _ = try await ledger.ingest(signedTransaction: try #require(store.signedTransaction(id)))
    }
  }

  /// Everything an account can leave behind, for `erased`; a subscription for `kept`.
  static func populate(
    _ ledger: Ledger, _ store: SimulatedAppStore, _ apple: AppStoreServerAPIClient
  ) async throws -> String {
    for id in ["era-sub-1", "era-gems-1", "keep-sub-1"] {
      _ = try await ledger.ingest(signedTransaction: try #require(store.signedTransaction(id)))
    }
    _ = try await ledger.debit(
      appAccountToken: erased, productId: "gems", quantity: 5, idempotencyKey: "spend-1",
      at: F.t(37).date)
    try await RefundConsents(ledger: ledger).record(
      appAccountToken: erased, consented: true, collectedAt: F.t(36).date)
    let request = try #require(store.requestRefund(of: "era-gems-1"))
    try await ConsumptionWorkerTests.deliver(store, to: ledger, from: 0)
    let pass = await ConsumptionWorkerTests.worker(ledger, apple, store).runOnce()
    #expect(pass.acted == 1, "the request answered or closed: \(pass)")
    _ = try await AppleActions(ledger: ledger).lookUpOrder(
      SimulatedAppStore.orderId(of: "era-sub-1"), apple: apple, at: F.t(40).date)
    _ = try await AccountProjector(ledger: ledger, logger: logger).catchUp()
    _ = try await RevenueProjector(ledger: ledger, logger: logger).catchUp()
    return request
  }

  @Test func anErasedAccountLeavesNoTraceInAnyTableAndTheLogStillProvesItself() async throws {
    let store = Self.store()
    try await Self.withLedgers { ledger, owner, database in
      try await H.withClient(store) { apple in
        let request = try await Self.populate(ledger, store, apple)
        let identifiers = [
          Self.erased, "era-sub-1", "era-gems-1", SimulatedAppStore.orderId(of: "era-sub-1"),
          SimulatedAppStore.appTransactionId(of: "cA"), request,
        ]
        // Given an account whose data is everywhere.
        for id in identifiers {
          #expect(try await Self.occurrences(of: id, in: database).count > 1, "\(id)")
        }
        var places = Set<String>()
        for id in identifiers { places.formUnion(try await Self.occurrences(of: id, in: database)) }
        for table in [
          "storeledger.changes.app_account_token", "storeledger.consumption_requests.stream_id",
          "storeledger.app_transactions.app_account_token",
          "storeledger_analytics.chains.original_transaction_id",
          "storeledger.change_derivations.app_account_token",
        ] {
          #expect(places.contains(table), "\(table) holds the account before")
        }
        let key = CheckpointKey.generate(.ed25519)
        let folder = CheckpointDirectory(
          FileManager.default.temporaryDirectory.appendingPathComponent(
            "erasure-\(UUID().uuidString)"))
        defer { try? FileManager.default.removeItem(at: folder.url) }
        let checkpoint = try #require(
          try await LogCheckpointer(
            ledger: ledger, key: key, directory: folder, origin: "tests", logger: Self.logger
          ).publish())
        let rowsBefore = try await database.eventCount()
        try await Self.analyze(database)
        #expect(
          try await Self.statistics(quoting: Self.erased, in: database) != [],
          "the planner's statistics quote the token before")

        // When the owner erases it.
        let receipt = try await AccountErasure(ledger: owner).erase(
          [Self.erased], reason: "GDPR Art. 17 request, ticket 4411", requestedBy: "dpo")

        // Then nothing of it is left, anywhere.
        #expect(receipt.outcome == .erased)
        #expect(receipt.erasedRows > 5 && receipt.erasedStreams >= 5)
        for id in identifiers {
          #expect(try await Self.occurrences(of: id, in: database) == [], "\(id)")
        }
        #expect(try await database.eventCount() == rowsBefore + 1, "the erasure's own event")
        // Nor in the planner's statistics, which ANALYZE sampled again with the erasure.
        for id in identifiers {
          #expect(try await Self.statistics(quoting: id, in: database) == [], "\(id)")
        }
        #expect(try await ledger.entitlements(for: Self.erased).isEmpty)
        #expect(try await ledger.events(for: Self.erased).isEmpty)
        // The other account is untouched.
        #expect(try await Self.occurrences(of: "keep-sub-1", in: database).count > 1)
        #expect(try await ledger.entitlements(for: Self.kept, at: F.t(50).date).count == 1)

        // The audit passes, counting what was erased and checking the erasure's record.
        let audit = try await LedgerMaintenance(ledger: ledger).audit()
        #expect(audit.isConsistent, "\(audit.problems)")
        #expect(audit.eventsErased == Int(receipt.erasedRows))
        #expect(audit.erasuresChecked == 1)
        // The checkpoint signed before still covers the log: the erased rows kept their hashes.
        let checked = try await LedgerMaintenance(ledger: ledger).auditCheckpoints(
          directory: folder, publicKey: key.publicKey)
        #expect(checked.isConsistent, "\(checked.problems)")
        #expect(checked.rowsCompared == checkpoint.treeSize)
        let erasures = try await AccountErasure(ledger: ledger).erasures()
        #expect(erasures.count == 1)
        #expect(erasures.first?.isIntact == true)
        #expect(erasures.first?.requestedBy == "dpo")
        #expect(erasures.first?.recordedRows == receipt.erasedRows)
        #expect(try await AccountErasure(ledger: ledger).erasure(ofAccount: Self.erased) != nil)
        #expect(try await AccountErasure(ledger: ledger).erasure(ofAccount: Self.kept) == nil)

        // Erasing again changes nothing and names the erasure that did it.
        let again = try await AccountErasure(ledger: owner).erase(
          [Self.erased], reason: "again", requestedBy: "dpo")
        #expect(again.outcome == .alreadyErased && again.erasureId == receipt.erasureId)
        #expect(try await database.eventCount() == rowsBefore + 1)
      }
    }
  }

  /// Both accounts subscribed, then erased: `erased` with its later data quarantined, `kept`
  /// with it attached.
  static func withBothErased(
    _ body: @Sendable (SimulatedAppStore, Ledger, Ledger, TestDatabase) async throws -> Void
  ) async throws {
    let store = Self.store()
    try await Self.withLedgers { ledger, owner, database in
      try await Self.subscribeBoth(ledger, store)
      _ = try await AccountErasure(ledger: owner).erase(
        [Self.erased], reason: "account deleted", requestedBy: "support")
      _ = try await AccountErasure(ledger: owner).erase(
        [Self.kept], reason: "account deleted", requestedBy: "support", later: .attach)
      try await body(store, ledger, owner, database)
    }
  }

  /// An offer signed for an account while it is erased appends to `offers:<token>`; the
  /// erasure once read and renamed that stream without waiting for the append, leaving a
  /// stream that starts past version 1 and an audit that fails for good. Given a transaction
  /// that holds the stream (as an append does), when the account is erased, then the erasure
  /// waits for it, and the audit passes once both are done.
  @Test func anErasureWaitsForAnOfferBeingSignedForTheAccount() async throws {
    let store = Self.store()
    try await Self.withLedgers { ledger, owner, database in
      try await Self.subscribeBoth(ledger, store)
      _ = try await AppleActions(ledger: ledger).signPromotionalOffer(
        for: Self.erased, productId: "pro.monthly", offerIdentifier: "SPRING50", key: H.apiKey)
      let stream = "offers:\(Self.erased)"
      try await database.asAdmin { client in
        try await client.withConnection { holder in
          try await holder.query("BEGIN", logger: Self.logger)
          try await holder.query(
            "SELECT pg_advisory_xact_lock(hashtextextended(\(stream), 0))", logger: Self.logger)
          let erasure = Task {
            try await AccountErasure(ledger: owner).erase(
              [Self.erased], reason: "account deleted", requestedBy: "support")
          }
          // The erasure asks for the stream's lock and waits (polled, never slept on).
          var waiting = false
          let deadline = ContinuousClock.now + .seconds(20)
          while !waiting, ContinuousClock.now < deadline {
            let rows = try await client.query(
              "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
              logger: Self.logger)
            for try await count in rows.decode(Int64.self) { waiting = count > 0 }
            if !waiting { try await Task.sleep(for: .milliseconds(20)) }
          }
          #expect(waiting, "the erasure went on without waiting for the offer stream")
          try await holder.query("COMMIT", logger: Self.logger)
          let receipt = try await erasure.value
          #expect(receipt.outcome == .erased)
        }
      }
      #expect(try await LedgerMaintenance(ledger: ledger).audit().isConsistent)
    }
  }

  @Test func laterDataIsQuarantinedOrAttachedAsTheErasureChose() async throws {
    try await Self.withBothErased { store, ledger, owner, database in
      // Apple renews both subscriptions afterwards, signed with the erased tokens.
      let rows = try await database.eventCount()
      for (id, token, customer) in [
        ("era-sub-1", Self.erased, "cA"), ("keep-sub-1", Self.kept, "cB"),
      ] {
        store.put(
          F.transaction("\(id)-r", original: id, purchased: 65, expires: 95, token: token),
          customer: customer)
        _ = try await ledger.ingest(
          signedTransaction: try #require(store.signedTransaction("\(id)-r")))
      }
      // Stored either way (a verified notification is never refused)…
      #expect(try await database.eventCount() == rows + 2)
      // …attached to no account under quarantine, to the account again under attach.
      #expect(try await ledger.events(for: Self.erased).isEmpty)
      #expect(try await ledger.entitlements(for: Self.erased, at: F.t(70).date).isEmpty)
      #expect(try await ledger.events(for: Self.kept).count == 1)
      #expect(try await ledger.entitlements(for: Self.kept, at: F.t(70).date).count == 1)
      // The quarantined renewal is found by its transaction id, and comes back by a link to
      // a new account.
      #expect(try await Self.occurrences(of: "era-sub-1-r", in: database).count > 0)
      // An append that raced the erasure (its index entry written before the register) is
      // what the audit reports; erasing again clears it.
      try await database.asAdmin { client in
        for statement in [
          "ALTER TABLE storeledger.account_streams DISABLE TRIGGER account_streams_skip_quarantined",
          "INSERT INTO storeledger.account_streams (app_account_token, stream_id) "
            + "VALUES ('\(Self.erased)', 'sub:Production:raced')",
          "ALTER TABLE storeledger.account_streams ENABLE TRIGGER account_streams_skip_quarantined",
        ] {
          try await client.query(PostgresQuery(unsafeSQL: statement), logger: Self.logger)
        }
      }
      let raced = try await LedgerMaintenance(ledger: ledger).audit()
      #expect(
        raced.problems.map(\.detail).contains {
          $0.contains("1 accounts an erasure quarantined hold data again")
        }, "\(raced.problems)")
      // Erasing again also takes the quarantined renewal, which names the erased token.
      let again = try await AccountErasure(ledger: owner).erase(
        [Self.erased], reason: "raced append", requestedBy: "support")
      #expect(again.outcome == .erased && again.erasedRows == 1)
      #expect(try await Self.occurrences(of: "era-sub-1-r", in: database) == [])
      #expect(try await LedgerMaintenance(ledger: ledger).audit().isConsistent)
      // Apple renews once more, still with the erased token: quarantined again.
      store.put(
        F.transaction(
          "era-sub-1-r2", original: "era-sub-1", purchased: 65, expires: 95,
          token: Self.erased),
        customer: "cA")
      _ = try await ledger.ingest(
        signedTransaction: try #require(store.signedTransaction("era-sub-1-r2")))
      let newcomer = F.account(33)
      // (Linking moves it without asking for a transfer: the erased account holds nothing.)
      _ = try await ledger.link(
        appAccountToken: newcomer, originalTransactionId: "era-sub-1", at: F.t(66).date)
      #expect(try await ledger.entitlements(for: newcomer, at: F.t(70).date).count == 1)
      // Erasing the attached account again erases what came since.
      let second = try await AccountErasure(ledger: owner).erase(
        [Self.kept], reason: "account deleted again", requestedBy: "support")
      #expect(second.outcome == .erased && second.erasedRows >= 1)
      #expect(try await LedgerMaintenance(ledger: ledger).audit().isConsistent)
    }
  }

  /// A grant for an account erased under quarantine would be written and never found (the
  /// server answered 404 and wrote one row per retry; schemathesis caught it): it is refused
  /// with `account_erased` and writes nothing, in bulk too. Under attach it is granted.
  @Test func grantsToAQuarantinedAccountAreRefusedAndWriteNothing() async throws {
    try await Self.withBothErased { _, ledger, _, database in
      let rows = try await database.eventCount()
      let grants = SupportGrants(ledger: ledger)
      for _ in 0..<2 {
        let refused = await #expect(throws: LedgerError.self) {
          _ = try await grants.grant(
            SupportGrantRequest(
              appAccountToken: Self.erased, entitlement: "gems", reason: "outage",
              by: "support", idempotencyKey: "erased-1"))
        }
        #expect(refused?.code == .accountErased)
        #expect(refused?.httpStatus == 409)
      }
      let bulk = try await grants.grant(
        [Self.erased], entitlement: "gems", reason: "outage", by: "support",
        idempotencyKey: "erased-bulk")
      #expect(bulk.granted.isEmpty && bulk.refused.map(\.code) == ["account_erased"])
      #expect(try await database.eventCount() == rows)
      let attached = try await grants.grant(
        SupportGrantRequest(
          appAccountToken: Self.kept, entitlement: "gems", reason: "outage", by: "support",
          idempotencyKey: "kept-1"))
      #expect(attached.state == .active)
      #expect(try await database.eventCount() == rows + 1)
    }
  }

  @Test func refusalsAreTypedAndChangeNothing() async throws {
    let store = Self.store()
    try await Self.withLedgers { ledger, owner, database in
      try await Self.subscribeBoth(ledger, store)
      // A purchase moved to another account is held by both: erased together or not at all.
      _ = try await ledger.link(
        appAccountToken: Self.kept, originalTransactionId: "era-sub-1", transfer: true)
      let rows = try await database.eventCount()
      let erasure = AccountErasure(ledger: owner)
      let shared = await #expect(throws: LedgerError.self) {
        try await erasure.erase([Self.erased], reason: "GDPR", requestedBy: "dpo")
      }
      #expect(shared?.code == .sharedWithOtherAccounts)
      #expect(shared?.httpStatus == 409)
      #expect(shared?.message.contains("erase those accounts in the same erasure") == true)
      let unknown = await #expect(throws: LedgerError.self) {
        try await erasure.erase([F.account(99)], reason: "GDPR", requestedBy: "dpo")
      }
      #expect(unknown?.code == .notFound)
      let blank = await #expect(throws: LedgerError.self) {
        try await erasure.erase([Self.erased], reason: "  ", requestedBy: "dpo")
      }
      #expect(blank?.code == .invalidRequest)
      let notAToken = await #expect(throws: LedgerError.self) {
        try await erasure.erase(["not-a-token"], reason: "GDPR", requestedBy: "dpo")
      }
      #expect(notAToken?.code == .invalidRequest)
      // The engine's own role may not erase unless an operator grants it.
      let writer = await #expect(throws: LedgerError.self) {
        try await AccountErasure(ledger: ledger).erase(
          [Self.erased, Self.kept], reason: "GDPR", requestedBy: "dpo")
      }
      #expect(writer?.code == .erasureNotPermitted)
      #expect(writer?.httpStatus == 403)
      #expect(try await database.eventCount() == rows)
      #expect(try await ledger.events(for: Self.erased).count > 0)
      #expect(try await AccountErasure(ledger: ledger).erasures().isEmpty)

      let together = try await erasure.erase(
        [Self.erased, Self.kept], reason: "GDPR", requestedBy: "dpo")
      #expect(together.outcome == .erased)
      for id in [Self.erased, Self.kept, "era-sub-1", "keep-sub-1"] {
        #expect(try await Self.occurrences(of: id, in: database) == [], "\(id)")
      }
      #expect(try await LedgerMaintenance(ledger: ledger).audit().isConsistent)
    }
  }

  @Test func aTombstoneOutsideAnErasureFailsTheAuditAndNoOtherEditIsLetThrough() async throws {
    let store = Self.store()
    try await Self.withLedgers { ledger, owner, database in
      try await Self.subscribeBoth(ledger, store)
      _ = try await AccountErasure(ledger: owner).erase(
        [Self.erased], reason: "GDPR", requestedBy: "dpo")
      try await database.asAdmin { client in
        // Any edit but a tombstone is refused, even to a superuser.
        let edit = await #expect(throws: PSQLError.self) {
          try await client.query(
            """
            UPDATE storeledger.events SET payload = '{}'::jsonb
            WHERE stream_id = 'sub:Production:keep-sub-1'
            """, logger: Self.logger)
        }
        #expect(edit?.serverInfo?[.sqlState] == "SL001")
        // A tombstone made by hand, to hide the row, is one no erasure recorded.
        let forged = UUID()
        try await client.query(
          """
          UPDATE storeledger.events
          SET payload = jsonb_build_object('erased', \(forged)::text), raw_signed = NULL,
              claims = NULL, metadata = '{}'::jsonb, idempotency_key = 'erased:' || event_id,
              erased_by = \(forged)
          WHERE stream_id = 'sub:Production:keep-sub-1'
          """, logger: Self.logger)
      }
      let audit = try await LedgerMaintenance(ledger: ledger).audit()
      let problems = audit.problems.filter { $0.kind == .erasure }
      #expect(problems.count == 1)
      #expect(problems.first?.detail.contains("which no erasure event records") == true)
    }
  }
}
