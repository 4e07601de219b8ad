import Foundation
import StoreLedgerTestSupport
import Testing

/// `keys create|list|revoke` as processes on a real database: a key is printed once, listed
/// by name and scopes (never the key), revoked; a taken name, an unknown scope and revoking a
/// key nobody uses are usage errors that change nothing.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct KeysCommandTests {
  @Test func keysAreMadeListedAndRevoked() async throws {
    try await AccountCommandTests().withLedgerOptions { options, _, _ in
      let made = try CommandLineRunner.run(
        ["keys", "create", "--name", "support", "--scopes", "read,console"] + options)
      #expect(made.status == 0, "\(made.standardError)")
      let key = made.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
      #expect(key.hasPrefix("slk_") && key.count == 4 + 16 + 1 + 43)
      #expect(made.standardError.contains("not shown again"))

      let taken = try CommandLineRunner.run(
        ["keys", "create", "--name", "support", "--scopes", "read"] + options)
      #expect(taken.status == 2 && taken.standardError.contains("in use"))
      let badScope = try CommandLineRunner.run(
        ["keys", "create", "--name", "x", "--scopes", "read,everything"] + options)
      #expect(badScope.status == 2 && badScope.standardError.contains("--scopes"))

      let list = try CommandLineRunner.run(["keys", "list"] + options)
      #expect(list.status == 0)
      #expect(
        list.standardOutput.contains("support")
          && list.standardOutput.contains("console,read") == false)
      #expect(list.standardOutput.contains("read,console"))
      #expect(!list.standardOutput.contains(String(key.suffix(43))), "the secret is never listed")

      #expect(try CommandLineRunner.run(["keys", "revoke", "support"] + options).status == 0)
      let again = try CommandLineRunner.run(["keys", "revoke", "support"] + options)
      #expect(again.status == 2 && again.standardError.contains("no key named support"))
      let json = try CommandLineRunner.run(["keys", "list", "--json"] + options)
      #expect(json.standardOutput.contains("\"revokedAt\""))
      // The name is free again once revoked.
      let reused = try CommandLineRunner.run(
        ["keys", "create", "--name", "support", "--scopes", "read"] + options)
      #expect(reused.status == 0)
    }
  }
}
