import Foundation
import StoreLedgerTestSupport
import Testing

/// `consent TOKEN` as a process on a real database: records, shows the history and the
/// answer in force; contradictory flags are a usage error.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct ConsentCommandTests {
  @Test func consentIsRecordedAndShown() async throws {
    try await AccountCommandTests().withLedgerOptions { options, _, _ in
      let token = "00000000-0000-4000-8000-0000000000c6"
      let none = try CommandLineRunner.run(["consent", token] + options)
      #expect(none.status == 0 && none.standardOutput.contains("no consent recorded"))
      let granted = try CommandLineRunner.run(
        [
          "consent", token, "--granted", "--collected-at", "2026-11-01T10:00:00Z", "--method",
          "dialog",
        ]
          + options)
      #expect(granted.status == 0, "\(granted.standardError)")
      #expect(granted.standardOutput.contains("2026-11-01T10:00:00Z granted (dialog)"))
      #expect(granted.standardOutput.contains("in force: granted"))
      let withdrawn = try CommandLineRunner.run(["consent", token, "--withdrawn"] + options)
      #expect(withdrawn.standardOutput.contains("in force: withdrawn"))
      let both = try CommandLineRunner.run(
        ["consent", token, "--granted", "--withdrawn"] + options)
      #expect(both.status == 2)
      let future = try CommandLineRunner.run(
        ["consent", token, "--granted", "--collected-at", "2099-01-01T00:00:00Z"] + options)
      #expect(future.status == 2 && future.standardError.contains("collectedAt"))
    }
  }
}
