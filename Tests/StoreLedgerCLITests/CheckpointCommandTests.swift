import AppStoreVerification
import Foundation
import PostgresNIO
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// `checkpoint new-key`, `checkpoint` and `audit --checkpoints` as processes on a real
/// database: a key is made, a checkpoint signed, the audit passes; after a rewrite behind the
/// triggers it exits 1 naming the row; bad keys and directories are usage errors.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct CheckpointCommandTests {
  typealias F = LedgerFixtures

  @Test func aKeyACheckpointAndAnAuditThatNamesARewrittenRow() async throws {
    try await AccountCommandTests().withLedgerOptions { options, pki, database in
      let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("checkpoint-cli-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: folder) }
      let keyPath = folder.appendingPathComponent("key.pem").path
      let made = try CommandLineRunner.run(["checkpoint", "new-key", "--out", keyPath])
      #expect(made.status == 0, "\(made.standardError)")
      let attributes = try FileManager.default.attributesOfItem(atPath: keyPath)
      #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
      let again = try CommandLineRunner.run(["checkpoint", "new-key", "--out", keyPath])
      #expect(again.status == 2 && again.standardError.contains("never overwritten"))

      let gems = try SignedFixtures(pki: pki).transaction(
        F.transaction("4400", product: "gems.100", type: .consumable, purchased: 1))
      #expect(
        try CommandLineRunner.run(["ingest", "-"] + options, standardInput: gems).status == 0)
      for index in 1...2 {
        let debit = try CommandLineRunner.run(
          ["debit", "00000000-0000-4000-8000-000000000001", "gems.100", "10", "--key", "k\(index)"]
            + options)
        #expect(debit.status == 0, "\(debit.standardError)")
      }
      let out = folder.appendingPathComponent("published").path
      let signed = try CommandLineRunner.run(
        ["checkpoint", "--key", keyPath, "--out", out] + options)
      #expect(signed.status == 0, "\(signed.standardError)")
      #expect(signed.standardOutput.contains("signed checkpoint of 3 rows"))
      let nothing = try CommandLineRunner.run(
        ["checkpoint", "--key", keyPath, "--out", out] + options)
      #expect(nothing.standardOutput.contains("none signed"))

      let audit = ["audit", "--checkpoints", out, "--public-key", keyPath + ".pub"] + options
      let clean = try CommandLineRunner.run(audit)
      #expect(clean.status == 0, "\(clean.standardOutput) \(clean.standardError)")
      #expect(clean.standardOutput.contains("1 checkpoints verified; 3 of the 3 rows"))

      _ = try await CheckpointAttack.rewriteSecondDebit(database)
      let caught = try CommandLineRunner.run(audit)
      #expect(caught.status == 1)
      #expect(
        caught.standardOutput.contains("checkpoint acct:00000000-0000-4000-8000-000000000001"))
      #expect(caught.standardOutput.contains("row 2 of the log"))
      let refused = try CommandLineRunner.run(
        ["checkpoint", "--key", keyPath, "--out", out] + options)
      #expect(refused.status == 1 && refused.standardError.contains("log_diverged"))

      // Bad input: a usage error naming the cause, nothing written.
      let stranger = folder.appendingPathComponent("other.pem").path
      _ = try CommandLineRunner.run([
        "checkpoint", "new-key", "--algorithm", "p256", "--out", stranger,
      ])
      let wrongKey = try CommandLineRunner.run(
        ["audit", "--checkpoints", out, "--public-key", stranger + ".pub"] + options)
      #expect(wrongKey.status == 2 && wrongKey.standardError.contains("wrong_public_key"))
      let notAKey = try CommandLineRunner.run(
        ["checkpoint", "--key", out + "/checkpoints", "--out", out] + options)
      #expect(notAKey.status == 2)
      let publicAsPrivate = try CommandLineRunner.run(
        ["checkpoint", "--key", keyPath + ".pub", "--out", out] + options)
      #expect(
        publicAsPrivate.status == 2 && publicAsPrivate.standardError.contains("unreadable_key"))
      let alone = try CommandLineRunner.run(["audit", "--checkpoints", out] + options)
      #expect(alone.status == 2 && alone.standardError.contains("go together"))
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: out + "/checkpoints").count == 1)
    }
  }
}
