import Foundation
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Synchronization
import Testing

/// `storeledger serve` as an operator runs it: configured from the environment, ready after
/// one log line, healthy, guarded by its key, and gone after SIGTERM.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct ServeCommandTests {
  @Test func servesFromEnvironmentAndStopsOnSigterm() async throws {
    try await TestDatabase.withMigrated { database in
      let process = Process()
      process.executableURL = CommandLineRunner.executable
      process.arguments = ["serve"]
      process.environment = [
        "DATABASE_URL": database.writerURL.description,
        "STORELEDGER_BUNDLE_ID": "com.example.app", "STORELEDGER_ENVIRONMENTS": "Sandbox",
        "STORELEDGER_API_KEYS": "k-1,k-2", "STORELEDGER_PORT": "0",
      ]
      let log = Pipe()
      process.standardError = log
      process.standardOutput = log
      let lines = LogLines()
      log.fileHandleForReading.readabilityHandler = { handle in lines.append(handle.availableData) }
      try process.run()
      defer { if process.isRunning { process.terminate() } }
      let port = try await lines.port(within: .seconds(60))
      let health = try await HTTPProbe.get("http://127.0.0.1:\(port)/health")
      #expect(health.status == 200)
      let guarded = try await HTTPProbe.get(
        "http://127.0.0.1:\(port)/v1/accounts/00000000-0000-4000-8000-00000000000a/entitlements")
      #expect(guarded.status == 401)
      let allowed = try await HTTPProbe.get(
        "http://127.0.0.1:\(port)/v1/accounts/00000000-0000-4000-8000-00000000000a/entitlements",
        bearer: "k-2")
      #expect(allowed.status == 200)
      // The first server recorded its app: the commands after it need no app flags.
      let recorded = try await database.asWriter { client in
        try await RecordedAppConfiguration.read(on: client, logger: TestDatabase.logger)
      }
      #expect(recorded?.bundleId == "com.example.app" && recorded?.environments == ["Sandbox"])
      #expect(recorded?.recordedBy == "serve")
      process.terminate()
      process.waitUntilExit()
      #expect(process.terminationStatus == 0)
      #expect(lines.text.contains("k-2") == false, "keys never reach the log")
    }
  }

  /// A missing setting is a usage error, said before the database is tried; the app may be
  /// left out only when the database records it.
  @Test func missingSettingsAreUsageErrors() async throws {
    let result = try CommandLineRunner.run([
      "serve", "--database-url", "postgres://x@127.0.0.1/db", "--bundle-id", "com.example.app",
    ])
    #expect(result.status == 2)
    #expect(result.standardError.contains("STORELEDGER_API_KEYS"))
    try await TestDatabase.withMigrated { database in
      let unrecorded = try CommandLineRunner.run([
        "serve", "--database-url", database.writerURL.description, "--api-keys", "k-1",
      ])
      #expect(unrecorded.status == 2)
      #expect(unrecorded.standardError.contains("STORELEDGER_BUNDLE_ID"))
      #expect(unrecorded.standardError.contains("storeledger migrate --bundle-id"))
    }
  }

  /// Change webhooks (a URL that is not http(s), a webhook without its secret, from flags or
  /// the environment) and a Sandbox policy that is not yes or no stop `serve` before it
  /// starts, with the reason; so does a trusted proxy that is no IP address.
  @Test func badChangeWebhooksAreUsageErrors() throws {
    let base = [
      "serve", "--database-url", "postgres://x@127.0.0.1/db", "--bundle-id", "com.example.app",
      "--api-keys", "k-1",
    ]
    let cases: [([String], [String: String], String)] = [
      (
        ["--changes-webhook", "ftp://hooks.example.com/x", "--changes-secret", "s"], [:], "http(s)"
      ),
      (["--changes-webhook", "https://hooks.example.com/x"], [:], "secret"),
      (
        [],
        [
          "STORELEDGER_CHANGES_WEBHOOKS": "https://a.example.com/x,https://b.example.com/y",
          "STORELEDGER_CHANGES_SECRETS": "only-one",
        ], "one secret per webhook"
      ),
      (["--trusted-proxies", "10.0.0.5,proxy.internal"], [:], "'proxy.internal' is no IP address"),
      ([], ["STORELEDGER_TRUSTED_PROXIES": "10.0.0.300"], "'10.0.0.300' is no IP address"),
      ([], ["STORELEDGER_FAILED_KEYS_PER_ADDRESS": "0"], "must be a positive number"),
    ]
    for (flags, environment, reason) in cases {
      let result = try CommandLineRunner.run(base + flags, environment: environment)
      #expect(result.status == 2, "\(flags) \(environment)")
      #expect(result.standardError.contains(reason), "\(result.standardError)")
      #expect(!result.standardError.contains("only-one"), "secrets never reach the output")
    }
  }
}

/// Collects a child's log output and finds the port in Hummingbird's ready line.
final class LogLines: Sendable {
  private let buffer = Mutex(Data())

  func append(_ data: Data) { buffer.withLock { $0.append(data) } }

  var text: String { buffer.withLock { String(decoding: $0, as: UTF8.self) } }

  /// The first capture of `pattern` once it appears in the output.
  func match(_ pattern: String, within limit: Duration) async throws -> String {
    let deadline = ContinuousClock.now + limit
    let expression = try Regex(pattern)
    while ContinuousClock.now < deadline {
      if let found = text.firstMatch(of: expression), let capture = found.output[1].substring {
        return String(capture)
      }
      try await Task.sleep(for: .milliseconds(50))
    }
    throw CocoaError(
      .fileReadUnknown, userInfo: [NSDebugDescriptionErrorKey: "no \(pattern) in: \(text)"])
  }

  func port(within limit: Duration) async throws -> Int {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
      if let range = text.range(of: #"listening on [^:\s]+:(\d+)"#, options: .regularExpression),
        let port = Int(text[range].split(separator: ":").last ?? "")
      {
        return port
      }
      try await Task.sleep(for: .milliseconds(50))
    }
    throw CocoaError(
      .fileReadUnknown, userInfo: [NSDebugDescriptionErrorKey: "no ready line: \(text)"])
  }
}
