import AppStoreVerification
import Foundation
import PostgresNIO
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// Concurrent ingests share commits, and one faulty ingest among them fails alone.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct GroupCommitTests {
  typealias F = LedgerFixtures

  static func purchase(_ index: Int, original: String? = nil) throws -> String {
    var transaction = F.transaction(
      "gc-\(index)", original: original, purchased: 0, expires: 30,
      token: LedgerFixtures.account(index))
    transaction = SignedFixtures.sandbox(transaction)
    return try SignedFixtures(pki: LedgerTests.pki).transaction(transaction)
  }

  static func count(_ query: PostgresQuery, _ database: TestDatabase) async throws -> Int {
    try await database.asAdmin { client in
      try await client.query(query, logger: TestDatabase.logger) { rows in
        var count = 0
        for try await value in rows.decode(Int.self) { count = value }
        return count
      }
    }
  }

  /// 64 ingests at once: all stored, in fewer transactions than ingests; the one that reuses a
  /// stored transaction under another purchase chain (its key belongs to another stream) is
  /// refused, and only it (its batch is split until it stands alone).
  @Test func concurrentIngestsShareCommitsAndAFaultyOneFailsAlone() async throws {
    try await TestDatabase.withMigrated { database in
      let outcomes = try await database.asWriter { client in
        let ledger = try AccountViewTests.ledger(client)
        _ = try await ledger.ingest(signedTransaction: try Self.purchase(0))
        let faulty = try Self.purchase(0, original: "another-chain")
        let signed = try (1...63).map { try Self.purchase($0) } + [faulty]
        return await withTaskGroup(of: LedgerError.Code?.self) { group in
          for jws in signed {
            group.addTask {
              do {
                _ = try await ledger.ingest(signedTransaction: jws)
                return nil
              } catch {
                return (error as? LedgerError)?.code ?? LedgerError.Code(rawValue: "other")
              }
            }
          }
          return await group.reduce(into: [LedgerError.Code?]()) { $0.append($1) }
        }
      }
      #expect(outcomes.compactMap { $0 } == [.databaseRejected])
      #expect(try await Self.count("SELECT count(*) FROM storeledger.events", database) == 64)
      let commits = try await Self.count(
        "SELECT count(DISTINCT tx_id) FROM storeledger.events", database)
      #expect(commits < 64)
      #expect(
        try await Self.count(
          "SELECT count(*) FROM storeledger.account_views WHERE changes = 1", database) == 64)
    }
  }
}
