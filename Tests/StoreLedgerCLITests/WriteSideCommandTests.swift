import Foundation
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// The write-side commands as processes against `storeledger simulate`: each calls the
/// simulated App Store Server API with the run's key, verifies what comes back with the run's
/// root, and says clearly what failed.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct WriteSideCommandTests {
  @Test func extendCheckOffersReceiptsAndOrdersFromTheCommandLine() async throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("write-side-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let simulator = Process()
    simulator.executableURL = CommandLineRunner.executable
    simulator.arguments = [
      "simulate", "--customers", "25", "--months", "3", "--seed", "4", "--day-seconds", "0",
      "--port", "0", "--out", folder.path,
    ]
    let log = Pipe()
    simulator.standardOutput = log
    simulator.standardError = log
    let lines = LogLines()
    log.fileHandleForReading.readabilityHandler = { handle in lines.append(handle.availableData) }
    try simulator.run()
    defer { if simulator.isRunning { simulator.terminate() } }
    let port = try await lines.match(#"API on http://127\.0\.0\.1:(\d+)"#, within: .seconds(60))
    let issuer = try await lines.match(#"issuer ([0-9a-f-]+),"#, within: .seconds(5))
    _ = try await lines.match(#"done: \d+ steps, (\d+) notifications"#, within: .seconds(60))
    try await TestDatabase.withMigrated { database in
      let options = [
        "--database-url", database.writerURL.description, "--bundle-id", "com.example.app",
        "--environments", "Sandbox", "--root-certs", folder.appendingPathComponent("root.der").path,
        "--api-url", "http://127.0.0.1:\(port)", "--key-id", "SIM4", "--issuer-id", issuer,
        "--p8", folder.appendingPathComponent("api-key.p8").path,
      ]
      let recovered = try CommandLineRunner.run(
        ["recover", "--since", "2026-01-01T00:00:00Z", "--until", "2026-12-31T00:00:00Z"]
          + options)
      #expect(recovered.status == 0, "\(recovered.standardError)")

      let extended = try CommandLineRunner.run(
        ["extend", "--product", "pro.monthly", "--days", "3", "--request-id", "cli-1"] + options)
      #expect(extended.status == 0, "\(extended.standardError)")
      #expect(extended.standardOutput.contains("requested mass extension cli-1"))
      let status = try CommandLineRunner.run(
        ["extend", "--status", "--product", "pro.monthly", "--request-id", "cli-1", "--json"]
          + options)
      #expect(status.standardOutput.contains(#""complete":true"#), "\(status.standardError)")
      let noDays = try CommandLineRunner.run(["extend", "--transaction", "1"] + options)
      #expect(noDays.status == 2)

      // `simulate` without --webhook has no notification URL: the check fails and says what
      // to fix.
      let check = try CommandLineRunner.run(["webhook-check", "--timeout", "1"] + options)
      #expect(check.status == 1)
      #expect(check.standardError.contains("notification URL"))
      #expect(check.standardError.contains("App Store Connect"))

      let token = try await database.asAdmin { client in
        try await client.query(
          "SELECT min(app_account_token) FROM storeledger.account_views",
          logger: TestDatabase.logger
        ) { rows in
          var token = ""
          for try await value in rows.decode(String.self) { token = value }
          return token
        }
      }
      let offers = try CommandLineRunner.run(["offers", token, "--json"] + options)
      #expect(offers.status == 0, "\(offers.standardError)")
      #expect(offers.standardOutput.contains(#""groups""#))
      let signed = try CommandLineRunner.run(
        ["offers", token, "--sign", "SPRING50", "--product", "pro.monthly"] + options)
      #expect(signed.standardOutput.contains(#""signature""#), "\(signed.standardError)")

      let receipts = try CommandLineRunner.run(
        ["import-receipts", "-", "--json"] + options, standardInput: "bm90IGEgcmVjZWlwdA==\n")
      #expect(receipts.status == 1)
      #expect(receipts.standardOutput.contains(#""failed":1"#))

      let order = try CommandLineRunner.run(["order", "MK5TTTVWJH"] + options)
      #expect(order.status == 1 && order.standardError.contains("Production only"))

      let someTransaction = try await database.asAdmin { client in
        try await client.query(
          "SELECT min(split_part(stream_id, ':', 3)) FROM storeledger.events WHERE stream_id LIKE 'sub:%'",
          logger: TestDatabase.logger
        ) { rows in
          var id = ""
          for try await value in rows.decode(String.self) { id = value }
          return id
        }
      }
      let download = try CommandLineRunner.run(["app-transaction", someTransaction] + options)
      #expect(download.status == 0, "\(download.standardError)")
      #expect(download.standardOutput.contains(#""appTransactionId""#))
    }
  }
}
