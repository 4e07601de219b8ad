import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// `grants create|list|revoke` as processes on a real database: one grant, a bulk grant from
/// standard input that a second run does not repeat, the end, and usage errors for bad grants.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct GrantsCommandTests {
  @Test func grantListRevokeAndBulk() async throws {
    try await AccountCommandTests().withLedgerOptions { options, _, database in
      let token = "00000000-0000-4000-8000-0000000000d1"
      let created = try CommandLineRunner.run(
        [
          "grants", "create", token, "--entitlement", "pro", "--days", "30", "--reason",
          "complaint 4411", "--by", "anna", "--json",
        ] + options)
      #expect(created.status == 0, "\(created.standardError)")
      let grant = try JSONDecoder().decode(
        [String: JSONValue].self, from: Data(created.standardOutput.utf8))
      guard case .string(let grantId)? = grant["grantId"] else {
        Issue.record("no grant id: \(created.standardOutput)")
        return
      }
      #expect(grant["grantedBy"] == .string("anna") && grant["state"] == .string("active"))
      let entitlements = try CommandLineRunner.run(["entitlements", token] + options)
      #expect(
        entitlements.standardOutput.contains("grant:\(grantId)"), "\(entitlements.standardOutput)")

      let others = (2...4).map { "00000000-0000-4000-8000-0000000000d\($0)" }
      let input = others.joined(separator: "\n") + "\n"
      let bulk =
        [
          "grants", "create", "-", "--entitlement", "pro", "--days", "7", "--reason",
          "outage", "--key", "outage-11-20",
        ] + options
      let first = try CommandLineRunner.run(bulk, standardInput: input)
      #expect(first.status == 0, "\(first.standardError)")
      #expect(first.standardOutput.contains("granted 3, already granted 0, refused 0"))
      let rows = try await database.eventCount()
      let second = try CommandLineRunner.run(bulk, standardInput: input)
      #expect(second.standardOutput.contains("granted 0, already granted 3"))
      #expect(try await database.eventCount() == rows)

      let revoked = try CommandLineRunner.run(
        ["grants", "revoke", token, grantId, "--reason", "resolved"] + options)
      #expect(revoked.status == 0, "\(revoked.standardError)")
      #expect(revoked.standardOutput.contains("ended"))
      let listed = try CommandLineRunner.run(["grants", "list", token] + options)
      #expect(listed.standardOutput.contains(grantId) && listed.standardOutput.contains("ended"))

      for bad in [
        ["grants", "create", token, "--entitlement", "platinum", "--reason", "r"],
        [
          "grants", "create", token, "--entitlement", "pro", "--days", "3", "--ends-at",
          "2026-12-01T00:00:00Z", "--reason", "r",
        ],
        ["grants", "create", token, others[0], "--entitlement", "pro", "--reason", "r"],
      ] {
        let refused = try CommandLineRunner.run(bad + options)
        #expect(refused.status == 2, "\(bad): \(refused.standardError)")
      }
      #expect(try await database.eventCount() == rows + 1)
      let audit = try CommandLineRunner.run(["audit"] + options)
      #expect(audit.status == 0, "\(audit.standardOutput)\(audit.standardError)")
      #expect(audit.standardOutput.contains("5 events are operators' grants"))
    }
  }
}
