import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// Every option that names a time reads the same forms: a date, RFC 3339 with or without a
/// fraction, Unix milliseconds; and refuses anything else with one text naming them.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct TimeOptionTests {
  static let forms = [
    "2026-01-01", "2026-01-01T00:00:00Z", "2026-01-01T01:00:00.000+01:00", "1767225600000",
  ]

  @Test func everyTimeOptionTakesTheSameForms() async throws {
    try await AccountCommandTests().withLedgerOptions { options, _, _ in
      let token = LedgerFixtures.account(7)
      for form in Self.forms {
        let commands: [[String]] = [
          ["metrics", "--at", form], ["metrics", "--from", form, "--to", "2026-02-01"],
          ["entitlements", token, "--at", form], ["explain", token, "--at", form],
          ["accounts", "list", "--changed-since", form], ["seats", "show", "1", "--at", form],
        ]
        for command in commands {
          let run = try CommandLineRunner.run(command + options)
          #expect(
            !run.standardError.contains("is not a time"),
            "\(command.joined(separator: " ")): \(run.standardError)")
        }
      }
      // The same date `metrics` takes is taken by `recover` (it goes on to ask Apple, and
      // fails for want of a key, not for the date).
      let recover = try CommandLineRunner.run(["recover", "--since", "2026-01-01"] + options)
      #expect(!recover.standardError.contains("is not a time"), "\(recover.standardError)")

      for (command, bad) in [
        (["recover", "--since"], "yesterday"), (["metrics", "--at"], "2026-01-01T00:00Z"),
        (["entitlements", token, "--at"], "2026-02-30"),
        (["consent", token, "--granted", "--collected-at"], "01/02/2026"),
      ] {
        let run = try CommandLineRunner.run(command + [bad] + options)
        #expect(run.status != 0)
        #expect(
          run.standardError.contains("'\(bad)' is not a time: give \(InstantText.forms)"),
          "\(command.joined(separator: " ")): \(run.standardError)")
      }
    }
  }
}
