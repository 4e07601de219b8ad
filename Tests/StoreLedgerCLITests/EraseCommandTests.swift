import Foundation
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// `erase TOKEN --reason` as a process on a real database: refused (exit 1, with the next
/// step) for a login that may not erase, done as the owner, idempotent, listed, and the audit
/// still passes and says what was erased.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct EraseCommandTests {
  @Test func theOwnerErasesOnceAndTheAuditStillPasses() async throws {
    try await AccountCommandTests().withLedgerOptions { options, _, database in
      let token = "00000000-0000-4000-8000-0000000000e1"
      let consent = ["consent", token, "--granted", "--collected-at", "2026-11-01T10:00:00Z"]
      let recorded = try CommandLineRunner.run(consent + options)
      #expect(recorded.status == 0, "\(recorded.standardError)")
      let owner = options.map {
        $0 == database.writerURL.description ? database.adminURL.description : $0
      }
      let reason = ["--reason", "GDPR Art. 17 request", "--requested-by", "dpo"]

      let missing = try CommandLineRunner.run(["erase", token] + owner)
      #expect(missing.status == 2 && missing.standardError.contains("--reason"))
      let writer = try CommandLineRunner.run(["erase", token] + reason + options)
      #expect(writer.status == 1)
      #expect(writer.standardError.contains("erasure_not_permitted"))
      #expect(writer.standardError.contains("storeledger_owner"))

      let erased = try CommandLineRunner.run(["erase", token] + reason + owner)
      #expect(erased.status == 0, "\(erased.standardError)")
      #expect(erased.standardOutput.contains("erased 1 rows in 1 streams of 1 account"))
      #expect(erased.standardOutput.contains("backups"))
      let again = try CommandLineRunner.run(["erase", token] + reason + owner)
      #expect(again.status == 0 && again.standardOutput.contains("already erased"))
      // The same answer recorded again after the erasure is new data, stored anew (the
      // tombstone kept neither its key nor its event id).
      let after = try CommandLineRunner.run(consent + options)
      #expect(after.status == 0, "\(after.standardError)")
      #expect(after.standardOutput.contains("in force: granted"))
      let unknown = try CommandLineRunner.run(
        ["erase", "00000000-0000-4000-8000-0000000000e2"] + reason + owner)
      #expect(unknown.status == 1 && unknown.standardError.contains("not_found"))

      let listed = try CommandLineRunner.run(["erase", "--list"] + options)
      #expect(listed.status == 0)
      #expect(listed.standardOutput.contains("1 rows, 1 account(s), by dpo: GDPR Art. 17 request"))
      let audit = try CommandLineRunner.run(["audit"] + options)
      // (The consent recorded after the erasure is not erased: one erased row still.)
      #expect(audit.status == 0, "\(audit.standardOutput)\(audit.standardError)")
      #expect(audit.standardOutput.contains("1 events erased by 1 erasures"))
      #expect(audit.standardOutput.contains("not verifiable by design"))
    }
  }
}
