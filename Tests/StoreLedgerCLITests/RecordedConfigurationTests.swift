import AppStoreVerification
import Foundation
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// The app's configuration lives in its database: `migrate` records it, every command then
/// answers with only `--database-url` (the catalog's names, the app's roots), and a flag that
/// contradicts the record is refused with both values.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct RecordedConfigurationTests {
  typealias F = LedgerFixtures
  static let token = "00000000-0000-4000-8000-0000000000e1"

  @Test func migrateRecordsTheAppAndCommandsNeedOnlyTheDatabase() async throws {
    try await TestDatabase.withMigrated { database in
      let pki = try TestPKI()
      let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("recorded-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: folder) }
      let root = folder.appendingPathComponent("root.der")
      try Data(pki.rootDER).write(to: root)
      let catalog = folder.appendingPathComponent("catalog.json")
      try Data(#"{"products":{"pro.monthly":{"entitlements":["pro"]}}}"#.utf8).write(to: catalog)
      let url = ["--database-url", database.writerURL.description]

      let nothing = try CommandLineRunner.run(["entitlements", Self.token] + url)
      #expect(nothing.status != 0)
      #expect(nothing.standardError.contains("storeledger migrate --bundle-id"))

      let migrated = try CommandLineRunner.run([
        "migrate", "--database-url", database.adminURL.description, "--bundle-id",
        "com.example.app", "--app-apple-id", "1234567890", "--environments", "Sandbox",
        "--root-certs", root.path, "--catalog", catalog.path,
      ])
      #expect(migrated.status == 0, "\(migrated.standardError)")
      #expect(migrated.standardOutput.contains("recorded the app com.example.app"))

      let subscribed = try SignedFixtures(pki: pki).notification(
        .subscribed, .initialBuy, uuid: "recorded-1",
        transaction: F.transaction("6100", purchased: 0, expires: 30, token: Self.token))
      let stored = try CommandLineRunner.run(["ingest", "-"] + url, standardInput: subscribed)
      #expect(stored.status == 0, "\(stored.standardError)")

      let at = ["--at", F.t(5).date.formatted(.iso8601)]
      let answered = try CommandLineRunner.run(["entitlements", Self.token] + at + url)
      #expect(answered.status == 0, "\(answered.standardError)")
      #expect(answered.standardOutput.contains("pro          yes"), "the catalog's name")
      #expect(!answered.standardOutput.contains("pro.monthly  yes"))

      let other = try CommandLineRunner.run(
        ["entitlements", Self.token, "--bundle-id", "com.other.app"] + url)
      #expect(other.status == 1)
      #expect(
        other.standardError.contains("com.other.app")
          && other.standardError.contains("com.example.app"), "\(other.standardError)")
      let production = try CommandLineRunner.run(
        ["entitlements", Self.token, "--environments", "Production"] + url)
      #expect(production.status == 1 && production.standardError.contains("Sandbox"))
      let same = try CommandLineRunner.run(
        ["entitlements", Self.token, "--bundle-id", "com.example.app"] + at + url)
      #expect(same.status == 0, "a flag that agrees is accepted")
    }
  }
}
