import AppStoreVerification
import Foundation
import PostgresNIO
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// `entitlements`, `events`, `explain`, `debit` and `ingest` as processes on a real database.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct AccountCommandTests {
  typealias F = LedgerFixtures

  /// A migrated database, a test PKI's root in a file, and the options every command needs.
  func withLedgerOptions(_ body: @Sendable ([String], TestPKI, TestDatabase) async throws -> Void)
    async throws
  {
    try await TestDatabase.withMigrated { database in
      let pki = try TestPKI()
      let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("account-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: folder) }
      let root = folder.appendingPathComponent("root.der")
      try Data(pki.rootDER).write(to: root)
      let catalog = folder.appendingPathComponent("catalog.json")
      try Data(
        #"{"products":{"pro.monthly":{"entitlements":["pro"]},"gems.100":{"entitlements":["gems"],"units":100}}}"#
          .utf8
      ).write(to: catalog)
      try await body(
        [
          "--database-url", database.writerURL.description, "--bundle-id", "com.example.app",
          "--environments", "Sandbox", "--root-certs", root.path, "--catalog", catalog.path,
        ], pki, database)
    }
  }

  /// Apple's real Sandbox TEST notification (no appAppleId, as Apple sends Sandbox data) with
  /// the default environments and an App Apple ID, exactly as a new user types it.
  @Test func applesRealSandboxTestNotificationIsStoredWithTheDefaults() async throws {
    try await TestDatabase.withMigrated { database in
      let file = SharedFixtures.root
        .appendingPathComponent("conformance/real-apple/notification-TEST-sandbox-2025-09-05.jws")
      let result = try CommandLineRunner.run([
        "ingest", file.path, "--database-url", database.writerURL.description, "--bundle-id",
        "com.loki-project.loki-messenger", "--app-apple-id", "1470168868",
      ])
      #expect(result.status == 0, "\(result.standardError)")
      #expect(result.standardOutput.hasPrefix("stored: notification TEST in app:Sandbox:"))
    }
  }

  /// A catalog that would make answers silently wrong is refused when it loads, naming the
  /// product and the field; a token that is not a UUID is refused with what a valid one is.
  @Test func aBadCatalogAndABadTokenAreRefusedClearly() async throws {
    try await withLedgerOptions { options, _, _ in
      let catalog = FileManager.default.temporaryDirectory
        .appendingPathComponent("catalog-\(UUID().uuidString).json")
      try Data(#"{"products":{"pass.30d":{"type":"Non-Renewing Subscription"}}}"#.utf8)
        .write(to: catalog)
      defer { try? FileManager.default.removeItem(at: catalog) }
      let at = try #require(options.firstIndex(of: "--catalog"))
      var withBadCatalog = options
      withBadCatalog[at + 1] = catalog.path
      let refused = try CommandLineRunner.run(
        ["entitlements", LedgerFixtures.account(1)] + withBadCatalog)
      #expect(refused.status != 0)
      #expect(refused.standardError.contains("pass.30d"))
      #expect(refused.standardError.contains("durationDays"))
      let badToken = try CommandLineRunner.run(["entitlements", "acct-1"] + options)
      #expect(badToken.status != 0)
      #expect(badToken.standardError.contains("invalid_request"))
      #expect(badToken.standardError.contains(AppAccountToken.example))
      let upper = try CommandLineRunner.run(
        ["entitlements", LedgerFixtures.account(1).uppercased(), "--json"] + options)
      #expect(upper.status == 0, "\(upper.standardError)")
    }
  }

  /// A CONSUMPTION_REQUEST ingested from the command line opens a refund request that
  /// `consumption list|show` report; `policy --dry-run` shows a policy's answer and refuses a
  /// policy file that does not parse, naming the member.
  @Test func refundRequestsAreListedShownAndDryRun() async throws {
    try await withLedgerOptions { options, pki, _ in
      let fixtures = SignedFixtures(pki: pki)
      let asked = try fixtures.notification(
        .consumptionRequest, uuid: "6A1B0000-0000-4000-8000-0000000000C2",
        transaction: F.transaction(
          "4200", product: "gems.100", type: .consumable, purchased: 1,
          token: "00000000-0000-4000-8000-0000000000c2"))
      let stored = try CommandLineRunner.run(["ingest", "-"] + options, standardInput: asked)
      #expect(stored.status == 0, "\(stored.standardError)")
      let list = try CommandLineRunner.run(["consumption", "list", "--state", "open"] + options)
      #expect(list.status == 0, "\(list.standardError)")
      #expect(list.standardOutput.contains("6a1b0000-0000-4000-8000-0000000000c2"))
      #expect(list.standardOutput.contains("1 received: 1 open"))
      let show = try CommandLineRunner.run(["consumption", "show", "4200", "--json"] + options)
      let report = try JSONDecoder().decode(
        [String: JSONValue].self, from: Data(show.standardOutput.utf8))
      #expect(report["state"] == .string("pending"))
      let missing = try CommandLineRunner.run(["consumption", "show", "999"] + options)
      #expect(missing.status != 0 && missing.standardError.contains("not_found"))

      let folder = FileManager.default.temporaryDirectory
      let good = folder.appendingPathComponent("policy-\(UUID().uuidString).json")
      try Data(#"{"customerConsented": true}"#.utf8).write(to: good)
      let bad = folder.appendingPathComponent("policy-\(UUID().uuidString).json")
      try Data(#"{"customerConsented": true, "refundPreference": "DECLINE"}"#.utf8).write(to: bad)
      defer {
        try? FileManager.default.removeItem(at: good)
        try? FileManager.default.removeItem(at: bad)
      }
      let dry = try CommandLineRunner.run(
        ["consumption", "policy", "--dry-run", "--policy", good.path] + options)
      #expect(dry.status == 0, "\(dry.standardError)")
      #expect(dry.standardOutput.contains("DELIVERED, 0 % spent, GRANT_FULL"))
      #expect(dry.standardOutput.contains("1 of 1 answers would change"))
      let refused = try CommandLineRunner.run(
        ["consumption", "policy", "--dry-run", "--policy", bad.path] + options)
      #expect(refused.status != 0 && refused.standardError.contains("refundPreference"))
    }
  }

  /// `changes list` after `changes derive`, its JSON lines in the webhook's
  /// shape; a position beyond the feed and an unknown endpoint are clear errors.
  @Test func changesAreListedAndResendNamesTheEndpoint() async throws {
    try await withLedgerOptions { options, pki, _ in
      let gems = try SignedFixtures(pki: pki).transaction(
        F.transaction(
          "4300", product: "gems.100", type: .consumable, purchased: 1,
          token: "00000000-0000-4000-8000-0000000000c3"))
      let stored = try CommandLineRunner.run(["ingest", "-"] + options, standardInput: gems)
      #expect(stored.status == 0, "\(stored.standardError)")
      let derived = try CommandLineRunner.run(["changes", "derive"] + options)
      #expect(derived.status == 0, "\(derived.standardError)")
      #expect(derived.standardOutput.contains("newest position is 3"))
      let list = try CommandLineRunner.run(["changes", "list", "--json"] + options)
      #expect(list.status == 0, "\(list.standardError)")
      let lines = try list.standardOutput.split(separator: "\n").map {
        try JSONDecoder().decode([String: JSONValue].self, from: Data($0.utf8))
      }
      #expect(
        lines.map { $0["type"] } == [
          .string("entitlement.granted"), .string("consumable.balance_changed"),
          .string("purchase"),
        ])
      guard case .object(let money)? = lines.last?["data"] else {
        Issue.record("no data")
        return
      }
      #expect(money["transactionId"] == .string("4300") && money["quantity"] == .number(1))
      guard case .object(let data)? = lines[1]["data"] else {
        Issue.record("no data")
        return
      }
      #expect(data["balance"] == .number(100) && data["previousBalance"] == .number(0))
      let table = try CommandLineRunner.run(["changes", "list"] + options)
      #expect(table.standardOutput.contains("consumable.balance_changed  gems.100"))
      let beyond = try CommandLineRunner.run(["changes", "list", "--after", "9"] + options)
      #expect(beyond.status != 0 && beyond.standardError.contains("position_beyond_feed"))
      let resend = try CommandLineRunner.run(
        ["changes", "resend", "--endpoint", "hooks.example.com/x", "--position", "1"] + options)
      #expect(resend.status != 0 && resend.standardError.contains("no changes webhook"))
      let deliveries = try CommandLineRunner.run(["changes", "deliveries"] + options)
      #expect(deliveries.standardOutput.contains("endpoints: none"))
      let failing = try CommandLineRunner.run(
        ["changes", "deliveries", "--failing", "--json"] + options)
      let listing = try JSONDecoder().decode(
        JSONValue.self, from: Data(failing.standardOutput.utf8))
      guard case .object(let object) = listing else {
        Issue.record("not JSON: \(failing.standardOutput)")
        return
      }
      #expect(object["total"] == .number(0) && object["deliveries"] == .array([]))
      let edited = try CommandLineRunner.run(
        ["changes", "deliveries", "--cursor", "not-a-cursor"] + options)
      #expect(edited.status != 0 && edited.standardError.contains("without `cursor`"))
    }
  }

  @Test func ingestThenAskWhatTheAccountHasWhyAndSpendIt() async throws {
    try await withLedgerOptions { options, pki, _ in
      let fixtures = SignedFixtures(pki: pki)
      let subscribed = try fixtures.notification(
        .subscribed, .initialBuy, uuid: "cli-1",
        transaction: F.transaction(
          "4000", purchased: 0, expires: 30, token: "00000000-0000-4000-8000-0000000000c1"))
      let stored = try CommandLineRunner.run(["ingest", "-"] + options, standardInput: subscribed)
      #expect(stored.status == 0, "\(stored.standardError)")
      #expect(stored.standardOutput == "stored: notification SUBSCRIBED in sub:Sandbox:4000 v1\n")
      let again = try CommandLineRunner.run(
        ["ingest", "-", "--json"] + options,
        standardInput: #"{"signedPayload":"\#(subscribed)"}"#)
      #expect(again.standardOutput.contains(#""stored":false"#))
      let gems = try fixtures.transaction(
        F.transaction("4100", product: "gems.100", type: .consumable, purchased: 1, token: nil))
      let bought = try CommandLineRunner.run(
        ["ingest", "-", "--account", "00000000-0000-4000-8000-0000000000c1"] + options,
        standardInput: gems)
      #expect(bought.status == 0, "\(bought.standardError)")

      let at = ["--at", F.t(5).date.formatted(.iso8601)]
      let entitlements = try CommandLineRunner.run(
        ["entitlements", "00000000-0000-4000-8000-0000000000c1"] + at + options)
      #expect(entitlements.status == 0, "\(entitlements.standardError)")
      #expect(entitlements.standardOutput.contains("pro          yes"))
      #expect(entitlements.standardOutput.contains("4000                   pro.monthly  1 active"))
      let json = try CommandLineRunner.run(
        ["entitlements", "00000000-0000-4000-8000-0000000000c1", "--json"] + at + options)
      let summary = try JSONDecoder().decode(
        [String: JSONValue].self, from: Data(json.standardOutput.utf8))
      #expect(summary["entitlements"] != nil && summary["consumables"] != nil)

      let events = try CommandLineRunner.run(
        ["events", "00000000-0000-4000-8000-0000000000c1", "--json"] + options)
      let list = try JSONDecoder().decode([JSONValue].self, from: Data(events.standardOutput.utf8))
      #expect(list.count == 2)
      let table = try CommandLineRunner.run(
        ["events", "00000000-0000-4000-8000-0000000000c1"] + options)
      #expect(table.standardOutput.hasPrefix("2 events of 00000000-0000-4000-8000-0000000000c1"))

      let explained = try CommandLineRunner.run(
        ["explain", "00000000-0000-4000-8000-0000000000c1", "pro"] + at + options)
      #expect(explained.status == 0, "\(explained.standardError)")
      #expect(explained.standardOutput.contains("rule E1"))
      #expect(
        explained.standardOutput.contains(
          "· SUBSCRIBED/INITIAL_BUY signed 2026-01-01T00:00:00Z, transaction 4000"))
      let missing = try CommandLineRunner.run(
        ["explain", "00000000-0000-4000-8000-0000000000c1", "platinum"] + options)
      #expect(
        missing.status == 1 && missing.standardError.contains("has no platinum"),
        "\(missing.standardError)")

      let debit =
        ["debit", "00000000-0000-4000-8000-0000000000c1", "gems.100", "30", "--key", "order-1"]
        + options
      #expect(
        try CommandLineRunner.run(debit).standardOutput == "debited 30; gems.100 balance now 70\n")
      #expect(try CommandLineRunner.run(debit).standardOutput.hasPrefix("already debited"))
      let tooMuch = try CommandLineRunner.run(
        ["debit", "00000000-0000-4000-8000-0000000000c1", "gems.100", "71", "--key", "order-2"]
          + options)
      #expect(tooMuch.status == 1 && tooMuch.standardError.contains("insufficient_balance"))
      #expect(tooMuch.standardError.contains("→ see the balance"))
    }
  }

  /// `audit --shard K/N` on two "machines", then `audit --combine`: one verdict; the rebuild
  /// in the same shares.
  @Test func auditSharesCombineIntoOneVerdict() async throws {
    try await withLedgerOptions { options, pki, _ in
      let fixtures = SignedFixtures(pki: pki)
      for (index, id) in ["4500", "4600", "4700"].enumerated() {
        let payload = try fixtures.notification(
          .subscribed, .initialBuy, uuid: "shard-\(id)",
          transaction: F.transaction(id, purchased: 0, expires: 30, token: F.account(20 + index)))
        #expect(
          try CommandLineRunner.run(["ingest", "-"] + options, standardInput: payload).status == 0)
      }
      let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("shards-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: folder) }
      var files: [String] = []
      for shard in ["0/2", "1/2"] {
        let report = try CommandLineRunner.run(["audit", "--shard", shard, "--json"] + options)
        #expect(report.status == 0, "\(report.standardError)")
        let file = folder.appendingPathComponent("\(files.count).json").path
        try Data(report.standardOutput.utf8).write(to: URL(fileURLWithPath: file))
        files.append(file)
      }
      let combined = try CommandLineRunner.run(["audit", "--combine"] + files)
      #expect(combined.status == 0, "\(combined.standardError)")
      #expect(combined.standardOutput.contains("3 events: hash chains checked"))
      #expect(combined.standardOutput.hasSuffix("consistent\n"))
      let half = try CommandLineRunner.run(["audit", "--combine", files[0]])
      #expect(half.status == 2 && half.standardError.contains("each once"))
      let bad = try CommandLineRunner.run(["audit", "--shard", "2/2"] + options)
      #expect(bad.status == 2 && bad.standardError.contains("K/N"))
      // The rebuild in the same two shares: begin, fill each, switch.
      let begun = try CommandLineRunner.run(["rebuild", "--begin"] + options)
      let version = begun.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
      #expect(begun.status == 0 && Int(version) != nil, "\(begun.standardError)")
      for shard in ["0/2", "1/2"] {
        let filled = try CommandLineRunner.run(
          ["rebuild", "--shard", shard, "--into", version] + options)
        #expect(filled.standardOutput.hasPrefix("shard \(shard) of version \(version)"))
      }
      let switched = try CommandLineRunner.run(["rebuild", "--switch", version] + options)
      #expect(
        switched.standardOutput
          == "account views version \(version) is live; 0 accounts projected again\n")
      #expect(try CommandLineRunner.run(["audit"] + options).status == 0)
      let alone = try CommandLineRunner.run(["rebuild", "--shard", "0/2"] + options)
      #expect(alone.status == 2 && alone.standardError.contains("go together"))
    }
  }

  @Test func badInputIsRefusedWithTheNextStepAndNothingIsStored() async throws {
    try await withLedgerOptions { options, _, _ in
      let garbage = try CommandLineRunner.run(["ingest", "-"] + options, standardInput: "hello")
      #expect(garbage.status == 1 && garbage.standardError.contains("not signed App Store data"))
      let stranger = try SignedFixtures(pki: try TestPKI()).notification(
        .subscribed, uuid: "cli-2", transaction: F.transaction("5000", purchased: 0, expires: 30))
      let refused = try CommandLineRunner.run(["ingest", "-"] + options, standardInput: stranger)
      #expect(refused.status == 1 && refused.standardError.contains("verification_failed"))
      #expect(refused.standardError.contains("→ check --root-certs"))
      let events = try CommandLineRunner.run(
        ["events", "00000000-0000-4000-8000-000000000001", "--json"] + options)
      #expect(events.standardOutput == "[]\n")
      #expect(
        try CommandLineRunner.run(["debit", "a", "p", "0", "--key", "k"] + options).status == 2)
      let noDatabase = try CommandLineRunner.run(
        ["entitlements", "00000000-0000-4000-8000-000000000001", "--bundle-id", "com.example.app"],
        environment: ["DATABASE_URL": ""])
      #expect(noDatabase.status == 2 && noDatabase.standardError.contains("--database-url"))
    }
  }

  @Test(arguments: [
    "demo", "entitlements", "events", "explain", "ingest", "debit", "verify", "migrate", "fold",
    "serve", "simulate", "recover", "audit", "rebuild", "replay", "reconcile",
  ])
  func everyCommandHasHelpWithExamples(command: String) throws {
    let help = try CommandLineRunner.run([command, "--help"])
    #expect(help.status == 0)
    #expect(help.standardOutput.contains("Example"), "\(command)")
  }
}

/// The notification the issue reports refused: a correctly signed `UNCLAIM_SEATS` is stored by
/// `ingest` as unrouted evidence and listed by `not-understood`, through the binary.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct NotUnderstoodCommandTests {
  @Test func ingestStoresUnclaimSeatsAndNotUnderstoodListsIt() async throws {
    try await AccountCommandTests().withLedgerOptions { options, pki, _ in
      let members: [String: Any] = [
        "notificationType": "UNCLAIM_SEATS", "notificationUUID": "cli-unclaim-1",
        "version": "2.0", "signedDate": LedgerFixtures.t(1).milliseconds,
        "unclaimInfo": ["unclaimSeatIds": ["5b0c2d4e-0000-4000-8000-000000000001"]],
      ]
      let signed = pki.sign(payloadJSON: Array(try JSONSerialization.data(withJSONObject: members)))
      let stored = try CommandLineRunner.run(["ingest", "-"] + options, standardInput: signed)
      #expect(stored.status == 0, "\(stored.standardError)")
      #expect(
        stored.standardOutput.hasPrefix(
          "stored: notification UNCLAIM_SEATS in unrouted:cli-unclaim-1"))
      let listed = try CommandLineRunner.run(["not-understood", "--json"] + options)
      #expect(listed.status == 0, "\(listed.standardError)")
      let output =
        try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [String: Any]
      let first = (output?["notifications"] as? [[String: Any]])?.first
      #expect(first?["notificationUUID"] as? String == "cli-unclaim-1")
      #expect(first?["streamId"] as? String == "unrouted:cli-unclaim-1")
      #expect(output?["total"] as? Int == 1 && output?["nextCursor"] == nil)
      let table = try CommandLineRunner.run(["not-understood", "--reexamine"] + options)
      #expect(table.status == 0, "\(table.standardError)")
      #expect(
        table.standardOutput.contains(
          "re-examined 1 unrouted notifications: 0 routed, 1 still naming no app"))
      #expect(table.standardOutput.contains("UNCLAIM_SEATS"))
    }
  }
}

/// `storeledger seats` through the binary: a group subscription's seats, and a claim that
/// needs credentials refused with what to give.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct SeatsCommandTests {
  @Test func seatsShowAndAClaimWithoutCredentials() async throws {
    try await AccountCommandTests().withLedgerOptions { options, pki, _ in
      var purchase = LedgerFixtures.transaction(
        "6200", purchased: 0, expires: 3650, token: LedgerFixtures.account(1), quantity: 3)
      purchase.multiSeatInfo = TransactionMultiSeatInfo(
        invitationManagement: .developer,
        priceTiers: [MultiSeatPriceTier(tierPrice: 9_990, tierQuantity: 3)])
      let signed = try SignedFixtures(pki: pki).transaction(purchase)
      let stored = try CommandLineRunner.run(["ingest", "-"] + options, standardInput: signed)
      #expect(stored.status == 0, "\(stored.standardError)")
      let shown = try CommandLineRunner.run(["seats", "show", "6200"] + options)
      #expect(shown.status == 0, "\(shown.standardError)")
      #expect(shown.standardOutput.contains("seats: 3 in force, 0 revoked, 0 claimed, 3 available"))
      let json = try CommandLineRunner.run(["seats", "show", "6200", "--json"] + options)
      let report =
        try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any]
      #expect((report?["seats"] as? [String: Any])?["total"] as? Int == 3)
      let claim = try CommandLineRunner.run(
        ["seats", "claim", "6200", LedgerFixtures.account(2)] + options)
      #expect(claim.status != 0)
      #expect(claim.standardError.contains("--key-id"), "\(claim.standardError)")
      let missing = try CommandLineRunner.run(["seats", "show", "999"] + options)
      #expect(missing.status == 1)
      #expect(missing.standardError.contains("no subscription 999"), "\(missing.standardError)")
    }
  }
}
