import AppStoreVerification
import Foundation
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// `--read-database-url` on the command line: a query reads the real replica (its database
/// taken from the primary's when the URL names none), a replica that cannot be reached
/// leaves the answer to the primary, and a malformed URL is a usage error.
@Suite(.enabled(if: TestDatabase.shouldRun && TestReplica.shouldRun))
struct ReadReplicaCommandTests {
  typealias F = LedgerFixtures

  @Test func queriesReadTheReplicaAndFallBackWithoutIt() async throws {
    try await AccountCommandTests().withLedgerOptions { options, pki, database in
      let transaction = try SignedFixtures(pki: pki).transaction(
        F.transaction("7100", purchased: 0, expires: 30_000, token: F.account(7)))
      let stored = try CommandLineRunner.run(
        ["ingest", "-", "--account", F.account(7)] + options,
        standardInput: transaction)
      #expect(stored.status == 0, "\(stored.standardError)")
      _ = try await TestReplica.url(of: database)
      let server = try #require(TestReplica.serverURL).with(username: "storeledger_writer")
      var withoutDatabase = server
      withoutDatabase.database = nil
      let unreachable = try DatabaseURL("postgres://storeledger_writer@127.0.0.1:1/none")
      for replica in [withoutDatabase, unreachable] {
        let answer = try CommandLineRunner.run(
          ["entitlements", F.account(7), "--json", "--read-database-url", replica.description]
            + options)
        #expect(answer.status == 0, "\(answer.standardError)")
        let summary = try JSONDecoder().decode(
          [String: JSONValue].self, from: Data(answer.standardOutput.utf8))
        guard case .array(let entitlements)? = summary["entitlements"],
          case .object(let pro)? = entitlements.first
        else {
          Issue.record("no entitlements in \(answer.standardOutput)")
          continue
        }
        #expect(entitlements.count == 1 && pro["entitlement"] == .string("pro"), "\(replica)")
        #expect(pro["active"] == .bool(true))
      }
      let malformed = try CommandLineRunner.run(
        ["entitlements", F.account(7), "--read-database-url", "mysql://x"] + options)
      #expect(malformed.status == 2)
      #expect(malformed.standardError.contains("--read-database-url"))
    }
  }
}
