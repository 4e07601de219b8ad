import Foundation
import StoreLedgerTestSupport
import Testing

/// `storeledger relays` through the binary: a target's dead letters and attempts say how many
/// there are in all, and a cursor edited by hand is a usage error that says what to do.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct RelaysCommandTests {
  @Test func deadLettersAndAttemptsTellTheirTotals() async throws {
    try await AccountCommandTests().withLedgerOptions { options, _, _ in
      let added = try CommandLineRunner.run(
        ["relays", "add", "staging", "--url", "https://staging.example.com/apple"] + options)
      #expect(added.status == 0, "\(added.standardError)")
      let dead = try CommandLineRunner.run(["relays", "dead", "staging"] + options)
      #expect(dead.status == 0, "\(dead.standardError)")
      #expect(dead.standardOutput.contains("Dead letters of staging: 0 of 0"))
      let attempts = try CommandLineRunner.run(["relays", "attempts", "staging"] + options)
      #expect(attempts.status == 0, "\(attempts.standardError)")
      #expect(attempts.standardOutput.contains("Attempts to relay to staging: 0 of 0"))
      let edited = try CommandLineRunner.run(
        ["relays", "dead", "staging", "--cursor", "not-a-cursor"] + options)
      #expect(edited.status != 0 && edited.standardError.contains("without `cursor`"))
    }
  }
}
