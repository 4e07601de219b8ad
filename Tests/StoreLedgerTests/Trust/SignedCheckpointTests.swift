import AppStoreVerification
import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

@testable import StoreLedger

/// Signed checkpoints on a real PostgreSQL: what they prove beyond the hash chain. A superuser
/// who rewrites a debit (a row Apple did not sign) and recomputes its stream's chain with
/// `storeledger.event_digest`, then rebuilds the views, passes the plain audit; the checkpoint
/// audit names the row, and the checkpointer refuses to sign over it.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct SignedCheckpointTests {
  typealias F = LedgerFixtures
  static let token = "00000000-0000-4000-8000-000000000001"
  static let logger = TestDatabase.logger

  func withLedger(
    _ body: @Sendable (Ledger, TestDatabase, CheckpointDirectory) async throws -> Void
  ) async throws {
    try await TestDatabase.withMigrated { database in
      try await database.asWriter { client in
        let ledger = try AccountViewTests.ledger(client)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
          "checkpoints-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let gems = F.transaction("c1", product: "gems.100", type: .consumable, purchased: 0)
        _ = try await ledger.ingest(
          signedTransaction: try LedgerTests.pki.sign(LedgerTests.sandbox(gems)))
        for index in 1...3 {
          _ = try await ledger.debit(
            appAccountToken: Self.token, productId: "gems.100", quantity: 10,
            idempotencyKey: "spend-\(index)", at: LedgerTests.now)
        }
        try await body(ledger, database, CheckpointDirectory(folder))
      }
    }
  }

  func checkpointer(_ ledger: Ledger, _ key: CheckpointKey, _ folder: CheckpointDirectory)
    -> LogCheckpointer
  {
    LogCheckpointer(
      ledger: ledger, key: key, directory: folder, origin: "tests", logger: Self.logger)
  }

  @Test func checkpointsOfAGrowingLogAuditCleanAndEachExtendsTheOneBefore() async throws {
    try await withLedger { ledger, _, folder in
      let key = CheckpointKey.generate(.ed25519)
      let first = try #require(try await checkpointer(ledger, key, folder).publish())
      #expect(first.treeSize == 4, "a purchase and three debits")
      // Nothing new: nothing signed.
      #expect(try await checkpointer(ledger, key, folder).publish() == nil)
      _ = try await ledger.debit(
        appAccountToken: Self.token, productId: "gems.100", quantity: 5, idempotencyKey: "later",
        at: LedgerTests.now)
      // A new checkpointer takes up from the directory (after checking the log against it).
      let second = try #require(try await checkpointer(ledger, key, folder).publish())
      #expect(second.treeSize == 5)
      let leaves = try folder.leaves()
      #expect(leaves.count == 5)
      #expect(second.root == MerkleTree.root(leaves.map(MerkleTree.leafHash)))
      let proof = MerkleTree.consistencyProof(first: 4, leaves.map(MerkleTree.leafHash)[...])
      #expect(
        MerkleTree.verifyConsistency(
          first: 4, firstRoot: try #require(first.root), second: 5,
          secondRoot: try #require(second.root), proof: proof))
      _ = try await ledger.debit(
        appAccountToken: Self.token, productId: "gems.100", quantity: 5, idempotencyKey: "after",
        at: LedgerTests.now)
      let report = try await LedgerMaintenance(ledger: ledger).auditCheckpoints(
        directory: folder, publicKey: key.publicKey)
      #expect(report.isConsistent, "\(report.problems)")
      #expect(report.checkpoints == 2 && report.newestTreeSize == 5)
      #expect(report.rowsCompared == 5 && report.rowsAfterNewest == 1)
    }
  }

  @Test func aSuperuserRewriteWithTheChainRecomputedPassesThePlainAuditButNotTheCheckpoints()
    async throws
  {
    try await withLedger { ledger, database, folder in
      let key = CheckpointKey.generate(.es256)
      try #require(try await checkpointer(ledger, key, folder).publish() != nil)
      // The attack: the second debit spent 1, not 10; its chain made whole again.
      let (stream, version) = try await CheckpointAttack.rewriteSecondDebit(database)
      _ = try await LedgerMaintenance(ledger: ledger).rebuildAccountViews()
      let plain = try await LedgerMaintenance(ledger: ledger).audit()
      #expect(plain.isConsistent, "the hash chain cannot see it: \(plain.problems)")
      let balances = try await ledger.balances(for: Self.token, at: LedgerTests.now)
      #expect(balances.first?.balance == 79, "100 − 10 − 1 − 10: the rewrite took hold")

      let report = try await LedgerMaintenance(ledger: ledger).auditCheckpoints(
        directory: folder, publicKey: key.publicKey)
      #expect(!report.isConsistent)
      let problem = try #require(report.problems.first)
      #expect(problem.kind == .checkpoint)
      #expect(problem.subject == stream && problem.streamVersion == version)
      #expect(problem.detail.contains("row 2 of the log"))
      // The checkpointer signs nothing over the rewritten history.
      let refused = await #expect(throws: CheckpointError.self) {
        try await checkpointer(ledger, key, folder).publish()
      }
      #expect(refused?.code == .logDiverged)
      #expect(try folder.checkpoints().count == 1)
    }
  }

  @Test func anOlderCheckpointCopiedOverTheNewestAndStrayFilesAreReported() async throws {
    try await withLedger { ledger, database, folder in
      let key = CheckpointKey.generate(.ed25519)
      try #require(try await checkpointer(ledger, key, folder).publish()?.treeSize == 4)
      _ = try await ledger.debit(
        appAccountToken: Self.token, productId: "gems.100", quantity: 5, idempotencyKey: "later",
        at: LedgerTests.now)
      try #require(try await checkpointer(ledger, key, folder).publish()?.treeSize == 5)
      let maintenance = LedgerMaintenance(ledger: ledger)
      // The attack: the last row edited (chain recomputed), and the checkpoint that vouches
      // for it replaced by the one before, which still verifies and ends before the edit.
      _ = try await CheckpointAttack.rewriteDebit(at: 3, database)
      let older = folder.url.appendingPathComponent(CheckpointDirectory.checkpointName(treeSize: 4))
      let newest = folder.url.appendingPathComponent(
        CheckpointDirectory.checkpointName(treeSize: 5))
      try FileManager.default.removeItem(at: newest)
      try FileManager.default.copyItem(at: older, to: newest)
      let replaced = try await maintenance.auditCheckpoints(
        directory: folder, publicKey: key.publicKey)
      #expect(!replaced.isConsistent, "the edit of the last row hid behind an older checkpoint")
      #expect(
        replaced.problems.map(\.subject) == [CheckpointDirectory.checkpointName(treeSize: 5)],
        "\(replaced.problems)")
      #expect(replaced.problems.first?.detail.contains("tree size 4") == true)

      // Files the checkpointer never writes are named, not passed over.
      try FileManager.default.removeItem(at: newest)
      let strays = [
        "leaves/extra.txt", "leaves/00000000000000000004-00000000000000000005.txt.bak",
        "checkpoints/latest.json", "checkpoints/4.json",
      ]
      for name in strays {
        try Data("x".utf8).write(to: folder.url.appendingPathComponent(name))
      }
      let stray = try await maintenance.auditCheckpoints(
        directory: folder, publicKey: key.publicKey)
      #expect(Set(stray.problems.map(\.subject)) == Set(strays), "\(stray.problems)")
      // Without them the directory audits clean up to the checkpoint left (4 rows).
      for name in strays {
        try FileManager.default.removeItem(at: folder.url.appendingPathComponent(name))
      }
      let clean = try await maintenance.auditCheckpoints(
        directory: folder, publicKey: key.publicKey)
      #expect(clean.isConsistent, "\(clean.problems)")
      #expect(clean.newestTreeSize == 4 && clean.rowsAfterNewest == 1)
    }
  }

  @Test func whatMakesTheCheckImpossibleIsATypedError() async throws {
    try await withLedger { ledger, _, folder in
      let maintenance = LedgerMaintenance(ledger: ledger)
      let key = CheckpointKey.generate(.ed25519)
      let empty = await #expect(throws: CheckpointError.self) {
        try await maintenance.auditCheckpoints(directory: folder, publicKey: key.publicKey)
      }
      #expect(empty?.code == .unusableDirectory)
      try #require(try await checkpointer(ledger, key, folder).publish() != nil)
      let wrong = await #expect(throws: CheckpointError.self) {
        try await maintenance.auditCheckpoints(
          directory: folder, publicKey: CheckpointKey.generate(.ed25519).publicKey)
      }
      #expect(wrong?.code == .wrongPublicKey)
      // A checkpoint altered on disk: the signature no longer verifies, and it is named.
      let file = try #require(
        try FileManager.default.contentsOfDirectory(
          at: folder.checkpointsURL, includingPropertiesForKeys: nil
        ).first)
      var checkpoint = try LogCheckpoint.read(try Data(contentsOf: file), name: "x")
      checkpoint.treeSize = 3
      try checkpoint.encoded().write(to: file)
      let forged = try await maintenance.auditCheckpoints(
        directory: folder, publicKey: key.publicKey)
      #expect(forged.problems.first?.detail.contains("signature does not verify") == true)
      // A file that is not a checkpoint.
      try Data("{}".utf8).write(to: file)
      let malformed = await #expect(throws: CheckpointError.self) {
        try await maintenance.auditCheckpoints(directory: folder, publicKey: key.publicKey)
      }
      #expect(malformed?.code == .malformedCheckpoint)
    }
  }
}
