import Foundation
import PostgresNIO
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// `storeledger recover` against `storeledger simulate`, both as processes: the simulator
/// delivered nothing (no webhook), so every notification is a failure to recover, once.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct RecoverCommandTests {
  @Test func recoversEveryUndeliveredNotificationOnce() async throws {
    let simulator = SimulatorProcess(label: "recover")
    defer { simulator.stop() }
    try await simulator.start()
    let (folder, port, issuer, sent) = (
      simulator.folder, simulator.port, simulator.issuer, simulator.sent
    )
    try await TestDatabase.withMigrated { database in
      let arguments = [
        "recover", "--since", "2026-01-01T00:00:00Z", "--until", "2026-12-31T00:00:00Z",
        "--database-url", database.writerURL.description, "--bundle-id", "com.example.app",
        "--environments", "Sandbox", "--root-certs", folder.appendingPathComponent("root.der").path,
        "--api-url", "http://127.0.0.1:\(port)", "--key-id", "SIM4", "--issuer-id", issuer,
        "--p8", folder.appendingPathComponent("api-key.p8").path,
      ]
      let first = try CommandLineRunner.run(arguments)
      #expect(first.status == 0, "\(first.standardError)")
      #expect(first.standardOutput.contains("found \(sent) notifications: \(sent) appended"))
      let again = try CommandLineRunner.run(arguments + ["--json"])
      #expect(again.status == 0)
      #expect(again.standardOutput.contains(#""alreadyStored":\#(sent)"#))
      #expect(again.standardOutput.contains(#""appended":0"#))
      let wrongKey = try CommandLineRunner.run(
        arguments.map { $0 == "SIM4" ? "OTHER" : $0 })
      #expect(wrongKey.status == 1)
      #expect(wrongKey.standardError.contains("unauthorized"))
      // Replay every customer the log now knows: history snapshots signed now are new
      // evidence once; a second replay fetches nothing.
      let replayArguments = ["replay", "--all"] + arguments.dropFirst(5)
      let replayed = try CommandLineRunner.run(Array(replayArguments))
      #expect(replayed.status == 0, "\(replayed.standardError)")
      #expect(replayed.standardOutput.contains("replayed "))
      let replayedAgain = try CommandLineRunner.run(Array(replayArguments) + ["--json"])
      #expect(replayedAgain.standardOutput.contains(#""appended":0"#))
      #expect(replayedAgain.standardOutput.contains(#""transactionsFetched":0"#))
      #expect(try CommandLineRunner.run(["replay"] + arguments.dropFirst(5)).status == 2)
      // Everything recovered and replayed: the App Store and the log agree.
      let reconciled = try CommandLineRunner.run(
        ["reconcile", "--all", "--json"] + arguments.dropFirst(5))
      #expect(reconciled.status == 0, "\(reconciled.standardError)")
      #expect(reconciled.standardOutput.contains(#""disagreements":[]"#))
      #expect(reconciled.standardOutput.contains(#""recorded":0"#))
      // What was recovered audits clean; a read-model row edited by hand does not.
      let auditArguments = [
        "audit", "--database-url", database.writerURL.description, "--bundle-id",
        "com.example.app", "--environments", "Sandbox", "--root-certs",
        folder.appendingPathComponent("root.der").path,
      ]
      let rebuilt = try CommandLineRunner.run(["rebuild"] + auditArguments.dropFirst())
      #expect(
        rebuilt.status == 0
          && rebuilt.standardOutput.hasPrefix("account views version 2 is live (version 1 kept as"))
      let clean = try CommandLineRunner.run(auditArguments)
      // One account at a past time, with the events that decided it.
      let someAccount = try await database.asAdmin { client in
        try await client.query(
          """
          SELECT min(app_account_token) FROM storeledger.account_views
          WHERE jsonb_array_length(view->'entitlements') > 0
          """, logger: TestDatabase.logger
        ) { rows in
          var token: String?
          for try await value in rows.decode(String?.self) { token = value }
          return try #require(token)
        }
      }
      let pointInTime = try CommandLineRunner.run(
        auditArguments + ["--account", someAccount, "--at", "2026-03-15T00:00:00Z", "--json"])
      #expect(pointInTime.status == 0, "\(pointInTime.standardError)")
      #expect(pointInTime.standardOutput.contains(#""explanations":["#))
      #expect(pointInTime.standardOutput.contains(#""asOf":1773532800000"#))
      let readable = try CommandLineRunner.run(auditArguments + ["--account", someAccount])
      #expect(readable.standardOutput.hasPrefix("\(someAccount) at "))
      #expect(clean.status == 0, "\(clean.standardOutput)")
      #expect(clean.standardOutput.hasSuffix("consistent\n"))
      try await database.asAdmin { client in
        try await client.execute(
          """
          UPDATE storeledger.account_views SET view = jsonb_set(view, '{entitlements}', '[]')
          WHERE app_account_token = (SELECT min(app_account_token) FROM storeledger.account_views
            WHERE jsonb_array_length(view->'entitlements') > 0 AND projected_changes = changes)
          """, logger: TestDatabase.logger)
      }
      let dirty = try CommandLineRunner.run(auditArguments + ["--json"])
      #expect(dirty.status == 1)
      #expect(dirty.standardOutput.contains(#""kind":"read_model""#))
      _ = try CommandLineRunner.run(["rebuild"] + auditArguments.dropFirst())
      #expect(try CommandLineRunner.run(auditArguments).status == 0)
      // The replaced version is kept: it differs from the live one in the edited account.
      let rebuildArguments = Array(auditArguments.dropFirst())
      let versions = try CommandLineRunner.run(["rebuild", "--list", "--json"] + rebuildArguments)
      #expect(versions.standardOutput.contains(#""state":"live","switchedAt""#))
      let compared = try CommandLineRunner.run(["rebuild", "--compare", "2"] + rebuildArguments)
      #expect(compared.standardOutput.hasPrefix("1 accounts' views differ:"))
      #expect(try CommandLineRunner.run(["rebuild", "--drop", "2"] + rebuildArguments).status == 0)
      let dropped = try CommandLineRunner.run(["rebuild", "--drop", "2"] + rebuildArguments)
      #expect(dropped.status == 1 && dropped.standardError.contains("not retired"))
    }
  }
}
