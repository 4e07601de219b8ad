import AppStoreVerification
import Foundation
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// The embedding examples under Examples/ — Hummingbird (a target of the package) and Vapor (a
/// package of its own, which the test command builds after this one) — run here as a backend
/// would run them: each migrates a new
/// database as its owner, serves as the writer role, stores a notification Apple signed,
/// answers the entitlement check, and answers refused input with the library's own 4xx, never
/// a 500.
@Suite(.enabled(if: TestDatabase.shouldRun), .serialized) struct ExampleTargetTests {
  typealias F = LedgerFixtures
  static let token = "00000000-0000-4000-8000-0000000000f1"

  /// Where the example's executable is: its own package's build when it is a package (the
  /// Vapor example), else beside the test binary.
  static func binary(_ name: String) -> URL {
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    let package = repository.appendingPathComponent("Examples/\(name)")
    guard
      FileManager.default.fileExists(atPath: package.appendingPathComponent("Package.swift").path)
    else {
      return CommandLineRunner.executable.deletingLastPathComponent().appendingPathComponent(name)
    }
    return package.appendingPathComponent(".build/debug/\(name)")
  }

  @Test(arguments: ["EmbeddingExample", "VaporExample"])
  func anExampleMigratesAsTheOwnerServesAsTheWriterAndMapsErrors(name: String) async throws {
    let binary = Self.binary(name)
    #expect(
      FileManager.default.isExecutableFile(atPath: binary.path),
      "\(binary.path) is missing: scripts/test builds it (swift build --package-path Examples/\(name))"
    )
    // A database with no schema yet: the example's owner creates it.
    try await TestDatabase.withMigrated(to: []) { database in
      let pki = try TestPKI()
      let root = FileManager.default.temporaryDirectory
        .appendingPathComponent("example-root-\(UUID().uuidString).der")
      try Data(pki.rootDER).write(to: root)
      defer { try? FileManager.default.removeItem(at: root) }
      let port = try DatabaseProblemTests.closedPort()
      let process = Process()
      process.executableURL = binary
      process.environment = [
        "MIGRATION_DATABASE_URL": database.adminURL.description,
        "DATABASE_URL": database.writerURL.description, "PORT": "\(port)",
        "BUNDLE_ID": "com.example.app", "APP_APPLE_ID": "1234567890",
        "ROOT_CERTIFICATE": root.path,
        "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
      ]
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      defer { if process.isRunning { process.terminate() } }
      let base = "http://127.0.0.1:\(port)"
      var ready = false
      for _ in 0..<300 where !ready {
        ready = (try? await HTTPProbe.get("\(base)/accounts/\(Self.token)/pro"))?.status == 200
        if !ready { try await Task.sleep(for: .milliseconds(100)) }
      }
      #expect(ready, "\(name) answers")
      #expect(try await database.eventCount() == 0)

      let signed = try SignedFixtures(pki: pki).notification(
        .subscribed, .initialBuy, uuid: "example-\(name)",
        transaction: F.transaction(
          "9100", purchased: 0, expires: 100_000, token: Self.token))
      let stored = try await HTTPProbe.post(
        "\(base)/appstore/notifications", body: #"{"signedPayload":"\#(signed)"}"#,
        contentType: "application/json")
      #expect(stored.status == 200, "\(String(decoding: stored.body, as: UTF8.self))")
      let pro = try await HTTPProbe.get("\(base)/accounts/\(Self.token)/pro")
      #expect(String(decoding: pro.body, as: UTF8.self) == "yes")

      // Refused input: the library's status, not a 500, and nothing stored.
      let forged = try await HTTPProbe.post(
        "\(base)/purchases", body: #"{"signedTransaction":"a.b.c","account":"\#(Self.token)"}"#,
        contentType: "application/json")
      #expect(forged.status == 401, "\(name): \(forged.status)")
      let badAccount = try await HTTPProbe.get("\(base)/accounts/not-a-uuid/pro")
      #expect(badAccount.status == 400, "\(name): \(badAccount.status)")
      let unsigned = try await HTTPProbe.post(
        "\(base)/appstore/notifications", body: #"{"signedPayload":"x.y.z"}"#,
        contentType: "application/json")
      #expect(unsigned.status == 401, "\(name): \(unsigned.status)")
      #expect(try await database.eventCount() == 1)
      process.interrupt()
      process.waitUntilExit()
    }
  }
}
