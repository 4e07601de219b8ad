import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// `accounts list` and `accounts transitions` as processes on a real database: filters, pages
/// with the printed cursor, every page as CSV, JSON, and usage errors for bad input.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct AccountsListCommandTests {
  typealias F = LedgerFixtures

  @Test func listsPagesAndRefusesBadFilters() async throws {
    try await AccountCommandTests().withLedgerOptions { options, pki, _ in
      let signed = SignedFixtures(pki: pki)
      let day = (Date().timeIntervalSince1970 * 1000 - Double(F.epoch)) / 86_400_000
      let tokens = (1...3).map { "0000000\($0)-0000-4000-8000-0000000000c0" }
      for (index, token) in tokens.enumerated() {
        var transaction = F.transaction(
          "48\(index)0", purchased: day - Double(10 + index), expires: day + 20,
          signed: day - Double(10 + index), token: token)
        transaction.storefront = index == 0 ? "FRA" : "USA"
        let stored = try CommandLineRunner.run(
          ["ingest", "-"] + options, standardInput: try signed.transaction(transaction))
        #expect(stored.status == 0, "\(stored.standardError)")
      }
      let gems = try signed.transaction(
        F.transaction(
          "4890", product: "gems.100", type: .consumable, purchased: day - 1, token: tokens[2]))
      #expect(
        try CommandLineRunner.run(["ingest", "-"] + options, standardInput: gems).status == 0)
      let rebuilt = try CommandLineRunner.run(["rebuild"] + options)
      #expect(rebuilt.status == 0, "\(rebuilt.standardError)")

      // Found by your own id once set, by a transaction id and by a token's start.
      let aliased = try CommandLineRunner.run(
        ["accounts", "alias", tokens[1], "user-4711"] + options)
      #expect(aliased.standardOutput == "alias user-4711\n", "\(aliased.standardError)")
      let taken = try CommandLineRunner.run(
        ["accounts", "alias", tokens[2], "user-4711"] + options)
      #expect(taken.status == 1 && taken.standardError.contains("another account"))
      let byAlias = try CommandLineRunner.run(["accounts", "find", "user-4711"] + options)
      #expect(byAlias.standardOutput == "\(tokens[1])  (by alias)\n", "\(byAlias.standardError)")
      let byStart = try CommandLineRunner.run(["accounts", "find", "{00000003000040"] + options)
      #expect(byStart.standardOutput.contains(tokens[2]))
      let nobody = try CommandLineRunner.run(["accounts", "find", "user-0"] + options)
      #expect(nobody.status == 1 && nobody.standardOutput.contains("no customer matches"))
      let removed = try CommandLineRunner.run(
        ["accounts", "alias", tokens[1], "--remove"] + options)
      #expect(removed.standardOutput == "removed alias user-4711\n")

      let text = try CommandLineRunner.run(["accounts", "list"] + options)
      #expect(text.status == 0, "\(text.standardError)")
      #expect(text.standardOutput.hasPrefix("3 accounts\nACCOUNT"))
      #expect(tokens.allSatisfy(text.standardOutput.contains))

      let french = try CommandLineRunner.run(["accounts", "list", "--storefront", "fra"] + options)
      #expect(
        french.standardOutput.contains(tokens[0]) && !french.standardOutput.contains(tokens[1]))
      let gemHolders = try CommandLineRunner.run(
        ["accounts", "list", "--product", "gems.100", "--format", "json"] + options)
      let page = try JSONDecoder().decode(
        JSONValue.self, from: Data(gemHolders.standardOutput.utf8))
      guard case .object(let object) = page, case .array(let rows)? = object["rows"] else {
        Issue.record("not a JSON page: \(gemHolders.standardOutput)")
        return
      }
      #expect(rows.count == 1 && object["total"] == .number(1))

      // A page of one prints the cursor of the next; following it gives the next account.
      let first = try CommandLineRunner.run(["accounts", "list", "--limit", "1"] + options)
      let cursor = try #require(
        first.standardOutput.split(separator: "\n").last.flatMap {
          $0.hasPrefix("more: --cursor ") ? String($0.dropFirst(15)) : nil
        })
      let second = try CommandLineRunner.run(
        ["accounts", "list", "--limit", "1", "--cursor", cursor] + options)
      #expect(second.status == 0, "\(second.standardError)")
      let firstToken = tokens.first { first.standardOutput.contains($0) }
      let secondToken = tokens.first { second.standardOutput.contains($0) }
      #expect(firstToken != nil && secondToken != nil && firstToken != secondToken)

      let csv = try CommandLineRunner.run(
        ["accounts", "list", "--limit", "1", "--all", "--format", "csv"] + options)
      #expect(csv.standardOutput.split(separator: "\r\n").count == 4)

      let transitions = try CommandLineRunner.run(
        ["accounts", "transitions", "--status", "active"] + options)
      #expect(transitions.status == 0, "\(transitions.standardError)")

      for bad in [
        ["--status", "sleeping"], ["--cursor", "abc"], ["--limit", "0"],
        ["--changed-since", "yesterday"], ["--search", "zz"],
      ] {
        let refused = try CommandLineRunner.run(["accounts", "list"] + bad + options)
        #expect(refused.status == 2, "\(bad): \(refused.standardError)")
        #expect(!refused.standardError.isEmpty)
      }
      let tampered = try CommandLineRunner.run(
        ["accounts", "list", "--limit", "1", "--status", "2", "--cursor", cursor] + options)
      #expect(tampered.status == 2 && tampered.standardError.contains("without `cursor`"))
    }
  }
}
