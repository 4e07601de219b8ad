import AppStoreSimulator
import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

@testable import StoreLedger

/// The audit on a real database: a clean log passes; a payload edited behind the triggers and
/// a read-model row edited by hand are each named; rebuilding the views fixes the latter.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct LedgerAuditTests {
  typealias S = SimulatedAppStoreHarness

  /// A ledger holding a simulated half-year, every account view projected.
  func withAuditedLedger(_ body: @Sendable (Ledger, TestDatabase) async throws -> Void)
    async throws
  {
    let store = S.store(Simulation(SimulationConfiguration(customers: 30, months: 6, seed: 8)))
    try await S.withLedger { ledger, database in
      for notification in store.notifications() {
        _ = try await ledger.ingest(notification: notification.signedPayload)
      }
      let forwarded = try #require(store.notifications().first { $0.transactionId != nil })
      _ = try await ledger.ingest(
        signedTransaction: try #require(store.signedTransaction(forwarded.transactionId!)),
        appAccountToken: "0F0E0D0C-0000-4000-8000-00000000FFFF")
      try await LedgerMaintenance(ledger: ledger).rebuildAccountViews()
      try await body(ledger, database)
    }
  }

  @Test func aCleanLogPassesEveryCheck() async throws {
    try await withAuditedLedger { ledger, _ in
      let report = try await LedgerMaintenance(ledger: ledger).audit(pageSize: 50)
      #expect(report.isConsistent, "\(report.problems.prefix(3))")
      // Every event but the refund requests' own (StoreLedger's, unsigned) is Apple's, signed.
      let requests = try await ConsumptionRequests(ledger: ledger).list(limit: 1000).count
      #expect(requests > 0)
      #expect(
        report.eventsChecked > 100 && report.signaturesVerified == report.eventsChecked - requests)
      #expect(report.accountsCompared > 10 && report.accountsNotCurrent == 0)
    }
  }

  /// The facts (`payload`) or Apple's claims beside them, edited behind the triggers: the
  /// hash chain and the re-verification both name the row.
  @Test(arguments: ["payload", "claims"])
  func aRowEditedBehindTheTriggersIsNamed(column: String) async throws {
    try await withAuditedLedger { ledger, database in
      let (stream, version) = try await database.asAdmin { client in
        try await client.execute(
          "ALTER TABLE storeledger.events DISABLE TRIGGER events_reject_update_delete",
          logger: TestDatabase.logger)
        // The column's name is one of the two literals above, never input.
        return try await client.query(
          PostgresQuery(
            unsafeSQL: """
              UPDATE storeledger.events
              SET \(column) = regexp_replace(\(column)::text, '"productId": "[^"]*"',
                '"productId": "tampered.product"', 'g')::jsonb
              WHERE (stream_id, stream_version) = (
                SELECT stream_id, stream_version FROM storeledger.events
                WHERE event_type = 'appstore.notification.v3' ORDER BY tx_id, seq OFFSET 7 LIMIT 1)
              RETURNING stream_id, stream_version
              """), logger: TestDatabase.logger
        ) { rows in
          var edited: (String, Int64)?
          for try await row in rows.decode((String, Int64).self) { edited = row }
          return try #require(edited)
        }
      }
      let report = try await LedgerMaintenance(ledger: ledger).audit(pageSize: 50)
      #expect(!report.isConsistent)
      let named = report.problems.filter { $0.subject == stream && $0.streamVersion == version }
      #expect(Set(named.map(\.kind)) == [.hashChain, .payload])
      #expect(report.problems.allSatisfy { $0.kind == .readModel || $0.subject == stream })
    }
  }

  /// Two shards audit the log between them: each stream and account is checked by exactly one,
  /// and their reports combine into the whole run's verdict, the planted edit found once.
  @Test func twoShardsCombineIntoTheVerdictOfOneRun() async throws {
    try await withAuditedLedger { ledger, database in
      let token = try await Self.editOneView(database)
      let whole = try await LedgerMaintenance(ledger: ledger).audit(pageSize: 40)
      let shards = try [WorkShard(index: 0, count: 2), WorkShard(index: 1, count: 2)]
      var reports: [AuditReport] = []
      for shard in shards {
        reports.append(
          try await LedgerMaintenance(ledger: ledger).audit(pageSize: 40, shard: shard))
      }
      #expect(reports.allSatisfy { $0.eventsChecked > 0 && $0.accountsCompared > 0 }, "both work")
      #expect(reports.filter { !$0.isConsistent }.count == 1, "the edit is in one share")
      let combined = try AuditReport.combining(reports)
      #expect(combined.problems == whole.problems)
      #expect(combined.problems.count == 1 && combined.problems.first?.subject == token)
      #expect(combined.eventsChecked == whole.eventsChecked)
      #expect(combined.signaturesVerified == whole.signaturesVerified)
      #expect(combined.accountsCompared == whole.accountsCompared)
      #expect(combined.changesCompared == whole.changesCompared)
      // Reports that are not every share once make no verdict.
      for partial in [[reports[0]], [reports[0], reports[0]], [reports[0], whole]] {
        #expect(throws: LedgerError.self) { try AuditReport.combining(partial) }
      }
    }
  }

  /// A rebuild split in two shares: begin, fill each share, switch; every account is projected
  /// by one share (nothing left to project after the switch), a planted edit is gone, and the
  /// live views are what one whole rebuild makes.
  @Test func aRebuildInTwoSharesEqualsOneRebuild() async throws {
    try await withAuditedLedger { ledger, database in
      _ = try await Self.editOneView(database)
      let version = try await LedgerMaintenance(ledger: ledger).beginAccountViewsRebuild()
      var accounts = 0
      for index in 0..<2 {
        let filled = try await LedgerMaintenance(ledger: ledger).fillAccountViews(
          version: version, shard: try WorkShard(index: index, count: 2), pageSize: 7)
        #expect(filled.accounts > 0, "share \(index) projects some accounts")
        accounts += filled.accounts
      }
      #expect(try await LedgerMaintenance(ledger: ledger).switchAccountViews(to: version) == 0)
      let report = try await LedgerMaintenance(ledger: ledger).audit()
      #expect(report.isConsistent, "\(report.problems.prefix(3))")
      #expect(report.accountsCompared == accounts)
      let whole = try await LedgerMaintenance(ledger: ledger).rebuildAccountViews()
      #expect(whole.accounts == accounts)
      #expect(
        try await LedgerMaintenance(ledger: ledger).accountViewsDifferences(from: version).isEmpty)
    }
  }

  @Test func anEditedReadModelRowIsShownAndRebuildFixesIt() async throws {
    try await withAuditedLedger { ledger, database in
      let token = try await Self.editOneView(database)
      let report = try await LedgerMaintenance(ledger: ledger).audit(pageSize: 7)
      let problem = try #require(report.problems.first)
      #expect(report.problems.count == 1)
      #expect(problem.kind == .readModel && problem.subject == token)
      #expect(problem.field == "subscriptions[0].status" && problem.live == "9")
      #expect(problem.rebuilt != "9")
      try await LedgerMaintenance(ledger: ledger).rebuildAccountViews()
      #expect(try await LedgerMaintenance(ledger: ledger).audit().isConsistent)
    }
  }

  /// A status history row edited by hand (what windows and outage grants select) is named
  /// by the audit, and a rebuild writes the log's history again.
  @Test func anEditedStatusHistoryRowIsShownAndRebuildFixesIt() async throws {
    try await withAuditedLedger { ledger, database in
      let token = try await database.asAdmin { client in
        try await client.query(
          """
          UPDATE storeledger.status_history SET effective_at_ms = effective_at_ms - 86400000
          WHERE (app_account_token, ordinal) = (
            SELECT app_account_token, ordinal FROM storeledger.status_history
            WHERE to_status = 3 ORDER BY app_account_token, ordinal LIMIT 1)
          RETURNING app_account_token
          """, logger: TestDatabase.logger
        ) { rows in
          var token: String?
          for try await value in rows.decode(String.self) { token = value }
          return try #require(token, "the half-year has an entry into billing retry")
        }
      }
      let report = try await LedgerMaintenance(ledger: ledger).audit(pageSize: 7)
      let problem = try #require(report.problems.first)
      #expect(report.problems.count == 1, "\(report.problems)")
      #expect(problem.kind == .readModel && problem.subject == token)
      #expect(problem.field?.hasPrefix("statusHistory[") == true)
      #expect(problem.live != problem.rebuilt)
      try await LedgerMaintenance(ledger: ledger).rebuildAccountViews()
      #expect(try await LedgerMaintenance(ledger: ledger).audit().isConsistent)
    }
  }

  @Test func rebuildEqualsLiveAndTwiceEqualsOnce() async throws {
    try await withAuditedLedger { ledger, database in
      let views: @Sendable () async throws -> [String: String] = {
        try await database.asAdmin { client in
          try await client.query(
            "SELECT app_account_token, view::text FROM storeledger.account_views",
            logger: TestDatabase.logger
          ) { rows in
            var views: [String: String] = [:]
            for try await (token, view) in rows.decode((String, String?).self) {
              views[token] = view
            }
            return views
          }
        }
      }
      let once = try await views()
      #expect(once.count > 10 && once.values.allSatisfy { !$0.isEmpty })
      try await LedgerMaintenance(ledger: ledger).rebuildAccountViews(pageSize: 4)
      #expect(try await views() == once)
      #expect(try await LedgerMaintenance(ledger: ledger).audit().isConsistent)
    }
  }

  @Test func aRebuildIsANewVersionSwitchedLiveAndTheOldOneIsKept() async throws {
    try await withAuditedLedger { ledger, database in
      // withAuditedLedger rebuilt once: version 2 live, 1 (never projected) kept.
      #expect(
        try await LedgerMaintenance(ledger: ledger).accountViewsVersions().map(\.state) == [
          "retired", "live",
        ])
      let again = try await LedgerMaintenance(ledger: ledger).rebuildAccountViews(pageSize: 5)
      #expect(again.version == 3 && again.replacedVersion == 2 && again.events > 100)
      #expect(try await LedgerMaintenance(ledger: ledger).accountViewsDifferences(from: 2).isEmpty)
      let token = try await Self.editOneView(database)
      let rebuilt = try await LedgerMaintenance(ledger: ledger).rebuildAccountViews()
      #expect(rebuilt.version == 4 && rebuilt.accounts == again.accounts)
      #expect(
        try await LedgerMaintenance(ledger: ledger).accountViewsDifferences(from: 3).map(
          \.appAccountToken) == [token])
      #expect(try await LedgerMaintenance(ledger: ledger).audit().isConsistent)
      try await LedgerMaintenance(ledger: ledger).dropAccountViewsVersion(3)
      #expect(
        try await LedgerMaintenance(ledger: ledger).accountViewsVersions().map(\.state) == [
          "retired", "retired", "dropped", "live",
        ])
      await #expect(throws: LedgerError.self) {
        try await LedgerMaintenance(ledger: ledger).dropAccountViewsVersion(3)
      }
      await #expect(throws: LedgerError.self) {
        try await LedgerMaintenance(ledger: ledger).accountViewsDifferences(from: 4)
      }
    }
  }

  @Test func anAccountAppendedToDuringARebuildIsProjectedAgainAfterTheSwitch() async throws {
    try await withAuditedLedger { ledger, database in
      let store = ledger.storage.maintenance
      let version = try await store.beginViewsVersion()
      _ = try await LedgerMaintenance(ledger: ledger).fill(
        version: version, total: 0, pageSize: 7, concurrency: 2, now: Date(), progress: nil)
      let tokens = try await ledger.storage.views.accounts(after: "", limit: 1, shard: .whole)
      // An append lands after the new version read the log and before the switch.
      let debited = try #require(tokens.first)
      _ = try await ledger.link(
        appAccountToken: debited, originalTransactionId: "2000000999999999")
      let stale = try await store.switchLive(to: version)
      #expect(stale == [debited])
      // Not current: queries fold it from the log, and the audit says so until projected.
      #expect(try await LedgerMaintenance(ledger: ledger).audit().accountsNotCurrent == 1)
      try await ledger.views.refreshViews(of: stale)
      let report = try await LedgerMaintenance(ledger: ledger).audit()
      #expect(report.isConsistent && report.accountsNotCurrent == 0)
    }
  }

  /// Sets one account's first subscription status to 9 in the live views; returns the account.
  /// A rebuilt table is filled before it is indexed: once live it has every index the table
  /// it replaced had (the lists' GIN indexes among them), and its list columns are those the
  /// projector writes.
  @Test func aRebuiltTableIsIndexedAsTheLiveOneWasAndListsAsItDid() async throws {
    try await withAuditedLedger { ledger, database in
      func indexes() async throws -> [String] {
        try await database.asAdmin { client in
          try await client.query(
            """
            SELECT regexp_replace(pg_get_indexdef(i.indexrelid), '^CREATE (UNIQUE )?INDEX \\S+ ON \\S+ ', '')
            FROM pg_index i WHERE i.indrelid = 'storeledger.account_views'::regclass ORDER BY 1
            """, logger: TestDatabase.logger
          ) { rows in
            var found: [String] = []
            for try await definition in rows.decode(String.self) { found.append(definition) }
            return found
          }
        }
      }
      func lists() async throws -> [String] {
        try await database.asAdmin { client in
          try await client.query(
            """
            SELECT app_account_token || ' ' || list_statuses::text || list_entitlements::text
              || list_products::text || list_environments::text || list_changed_ms::text
            FROM storeledger.account_views ORDER BY app_account_token
            """, logger: TestDatabase.logger
          ) { rows in
            var found: [String] = []
            for try await row in rows.decode(String.self) { found.append(row) }
            return found
          }
        }
      }
      let before = try await indexes()
      let listed = try await lists()
      #expect(before.count >= 10, "\(before)")
      #expect(before.contains { $0.contains("gin (list_statuses)") })
      #expect(listed.contains { $0.contains("{1}") }, "an active account lists status 1")
      _ = try await LedgerMaintenance(ledger: ledger).rebuildAccountViews(pageSize: 5)
      #expect(try await indexes() == before)
      #expect(try await lists() == listed)
    }
  }

  static func editOneView(_ database: TestDatabase) async throws -> String {
    try await database.asAdmin { client in
      try await client.query(
        """
        UPDATE storeledger.account_views
        SET view = jsonb_set(view, '{subscriptions,0,status}', '9')
        WHERE app_account_token = (
          SELECT app_account_token FROM storeledger.account_views
          WHERE jsonb_array_length(view->'subscriptions') > 0
          ORDER BY app_account_token LIMIT 1)
        RETURNING app_account_token
        """, logger: TestDatabase.logger
      ) { rows in
        var token: String?
        for try await value in rows.decode(String.self) { token = value }
        return try #require(token)
      }
    }
  }
}
