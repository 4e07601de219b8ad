import Foundation
import PostgresNIO
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// The write-side commands as processes against `storeledger simulate`: each calls the
/// simulated App Store Server API with the run's key, verifies what comes back with the run's
/// root, and says clearly what failed.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct WriteSideCommandTests {
  @Test func extendCheckOffersReceiptsAndOrdersFromTheCommandLine() async throws {
    let simulator = SimulatorProcess(label: "write-side")
    defer { simulator.stop() }
    try await simulator.start()
    let (rootPath, apiOptions) = (simulator.rootPath, simulator.apiOptions())
    try await TestDatabase.withMigrated { database in
      let options =
        [
          "--database-url", database.writerURL.description, "--bundle-id", "com.example.app",
          "--environments", "Sandbox", "--root-certs", rootPath,
        ] + apiOptions
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

      let token = try await Self.first(
        "SELECT min(app_account_token) FROM storeledger.account_views", in: database)
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

      let someTransaction = try await Self.first(
        "SELECT min(split_part(stream_id, ':', 3)) FROM storeledger.events "
          + "WHERE stream_id LIKE 'sub:%'", in: database)
      let download = try CommandLineRunner.run(["app-transaction", someTransaction] + options)
      #expect(download.status == 0, "\(download.standardError)")
      #expect(download.standardOutput.contains(#""appTransactionId""#))
    }
  }

  /// The one text value `query` selects.
  static func first(_ query: String, in database: TestDatabase) async throws -> String {
    try await database.asAdmin { client in
      try await client.query("\(unescaped: query)", logger: TestDatabase.logger) {
        rows in
        var value = ""
        for try await text in rows.decode(String.self) { value = text }
        return value
      }
    }
  }
}
