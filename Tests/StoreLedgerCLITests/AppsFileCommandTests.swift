import AppStoreVerification
import Foundation
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// Several apps from one apps file, as an operator runs the commands: `--app` picks the app's
/// database, identity and catalog; a wrong or missing app, and a wrong file, are usage errors.
@Suite struct AppsFileCommandTests {
  typealias F = LedgerFixtures
  static let token = "00000000-0000-4000-8000-0000000000b7"

  /// A folder for files, removed afterwards.
  static func withFolder<Result>(_ body: (URL) throws -> Result) throws -> Result {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("apps-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try body(folder)
  }

  static func write(_ text: String, _ name: String, in folder: URL) throws -> String {
    let file = folder.appendingPathComponent(name)
    try Data(text.utf8).write(to: file)
    return file.path
  }

  @Test(.enabled(if: TestDatabase.shouldRun))
  func eachAppHasItsOwnDatabaseIdentityAndCatalog() async throws {
    try await TestDatabase.withMigrated(to: []) { pro in
      try await TestDatabase.withMigrated(to: []) { lite in
        try Self.withFolder { folder in try Self.runTwoApps(folder, pro: pro, lite: lite) }
      }
    }
  }

  static func runTwoApps(_ folder: URL, pro: TestDatabase, lite: TestDatabase) throws {
    let pki = try TestPKI()
    let root = folder.appendingPathComponent("root.der")
    try Data(pki.rootDER).write(to: root)
    _ = try write(#"{"products":{"pro.monthly":{"entitlements":["pro"]}}}"#, "pro.json", in: folder)
    _ = try write(
      #"{"products":{"lite.monthly":{"entitlements":["lite"]}}}"#, "lite.json", in: folder)
    // Database names on the server of --database-url; catalogs relative to the file.
    let apps = try write(
      """
      {"apps": [
        {"name": "pro", "bundleId": "com.example.app", "environments": ["Sandbox"],
         "database": "\(pro.name)", "catalog": "pro.json"},
        {"name": "lite", "bundleId": "com.example.lite", "environments": ["Sandbox"],
         "database": "\(lite.name)", "catalog": "lite.json", "sandboxEntitles": true}
      ]}
      """, "apps.json", in: folder)
    let admin = "postgres://postgres@\(pro.adminURL.host):\(pro.adminURL.port)/postgres"
    let migrated = try CommandLineRunner.run(["migrate", "--database-url", admin, "--apps", apps])
    #expect(migrated.status == 0, "\(migrated.standardError)")
    #expect(
      migrated.standardOutput.components(separatedBy: "applied").count - 1 == 2,
      "\(migrated.standardOutput)")
    let writer = pro.writerURL.with(database: "postgres").description
    let options = ["--database-url", writer, "--apps", apps, "--root-certs", root.path]
    let fixtures = SignedFixtures(pki: pki)
    for (app, bundle, product, id) in [
      ("pro", "com.example.app", "pro.monthly", "6000"),
      ("lite", "com.example.lite", "lite.monthly", "6100"),
    ] {
      let payload = try fixtures.notification(
        .subscribed, .initialBuy, uuid: "file-\(id)",
        transaction: F.transaction(
          id, product: product, purchased: 0, expires: 3650, token: token),
        bundleId: bundle)
      let stored = try CommandLineRunner.run(
        ["ingest", "-", "--app", app] + options, standardInput: payload)
      #expect(stored.status == 0, "\(stored.standardError)")
    }
    let foreign = try fixtures.notification(
      .subscribed, .initialBuy, uuid: "file-6200",
      transaction: F.transaction("6200", product: "lite.monthly", purchased: 0, token: token),
      bundleId: "com.example.lite")
    let refused = try CommandLineRunner.run(
      ["ingest", "-", "--app", "pro"] + options, standardInput: foreign)
    #expect(refused.status == 1 && refused.standardError.contains("verification_failed"))
    for (app, other) in [("pro", "lite"), ("lite", "pro")] {
      let shown = try CommandLineRunner.run(
        ["entitlements", token, "--json", "--app", app] + options)
      #expect(shown.status == 0, "\(shown.standardError)")
      #expect(shown.standardOutput.contains(#""entitlement":"\#(app)""#))
      #expect(!shown.standardOutput.contains(#""entitlement":"\#(other)""#))
    }
    let unnamed = try CommandLineRunner.run(["entitlements", token] + options)
    #expect(unnamed.status != 0 && unnamed.standardError.contains("give --app"))
    #expect(unnamed.standardError.contains("pro, lite"))
    let unknown = try CommandLineRunner.run(["entitlements", token, "--app", "max"] + options)
    #expect(unknown.status != 0 && unknown.standardError.contains(#"unknown app "max""#))
  }

  /// `serve --apps` serves each app under /apps/NAME over its own database, labels metrics
  /// with the app, and asks for an app on the unprefixed account routes.
  @Test(.enabled(if: TestDatabase.shouldRun))
  func serveTakesTheAppsFile() async throws {
    try await TestDatabase.withMigrated { pro in
      try await TestDatabase.withMigrated { lite in
        let folder = FileManager.default.temporaryDirectory
          .appendingPathComponent("apps-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let apps = try Self.write(
          """
          {"apps": [{"name": "pro", "bundleId": "com.example.app", "appAppleId": 1234567890,
                     "database": "\(pro.name)"},
                    {"name": "lite", "bundleId": "com.example.lite", "environments": ["Sandbox"],
                     "database": "\(lite.name)"}]}
          """, "apps.json", in: folder)
        let process = Process()
        process.executableURL = CommandLineRunner.executable
        process.arguments = ["serve", "--apps", apps]
        process.environment = [
          "DATABASE_URL": pro.writerURL.with(database: "postgres").description,
          "STORELEDGER_API_KEYS": "k-1", "STORELEDGER_PORT": "0",
        ]
        let log = Pipe()
        process.standardError = log
        process.standardOutput = log
        let lines = LogLines()
        log.fileHandleForReading.readabilityHandler = { lines.append($0.availableData) }
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let base = "http://127.0.0.1:\(try await lines.port(within: .seconds(60)))"
        #expect(try await HTTPProbe.get("\(base)/health").status == 200)
        for app in ["pro", "lite"] {
          let answer = try await HTTPProbe.get(
            "\(base)/apps/\(app)/v1/accounts/\(Self.token)/entitlements", bearer: "k-1")
          #expect(answer.status == 200)
        }
        let unnamed = try await HTTPProbe.get(
          "\(base)/v1/accounts/\(Self.token)/entitlements", bearer: "k-1")
        #expect(unnamed.status == 400)
        let metrics = try await HTTPProbe.get("\(base)/metrics")
        #expect(
          String(decoding: metrics.body, as: UTF8.self).contains(
            #"storeledger_projector_events_total{app="lite"}"#))
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
      }
    }
  }

  /// Every mistake in the file, or beside it, stops the command with where it is.
  @Test func badAppsFilesAreUsageErrorsThatSayWhere() throws {
    try Self.withFolder { folder in
      let app = #""bundleId": "com.example.app", "appAppleId": 1"#
      let cases: [(String, [String], String)] = [
        ("[]", [], "must be an object"),
        (#"{"apps": []}"#, [], "at least one app"),
        (#"{"apps": [{"name": "pro"}]}"#, [], "apps[0].bundleId is required"),
        (#"{"apps": [{\#(app), "bundleID": "x"}]}"#, [], #"unknown field "bundleID""#),
        (#"{"apps": [{\#(app), "name": "a b"}]}"#, [], "apps[0].name may hold only"),
        (#"{"apps": [{\#(app), "environments": ["Prod"]}]}"#, [], "apps[0].environments"),
        (
          #"{"apps": [{"bundleId": "com.example.app", "appAppleId": "12"}]}"#, [],
          "appAppleId must be a positive"
        ),
        (#"{"apps": [{\#(app), "sandboxEntitles": "yes"}]}"#, [], "must be true or false"),
        (
          #"{"apps": [{\#(app), "database": "a"}, {"bundleId": "b", "appAppleId": 2, "database": "a"}]}"#,
          [],
          "two apps have the database a"
        ),
        (#"{"apps": [{\#(app)}, {\#(app), "name": "b"}]}"#, [], "bundleId com.example.app"),
        (#"{"apps": [{\#(app), "appStoreServerAPI": {"keyId": "K"}}]}"#, [], "needs keyId"),
        (#"{"apps": [{\#(app)}]}"#, ["--bundle-id", "x"], "--bundle-id is set per app"),
        ("{", [], "is not JSON"),
        (
          #"{"apps": [{"bundleId": "com.example.app"}]}"#, [],
          "apps[0].appAppleId is required to accept Production data"
        ),
      ]
      for (index, (text, extra, message)) in cases.enumerated() {
        let path = try Self.write(text, "apps-\(index).json", in: folder)
        let result = try CommandLineRunner.run(
          [
            "entitlements", Self.token, "--database-url", "postgres://x@127.0.0.1:1/db",
            "--apps", path,
          ] + extra)
        #expect(result.status == 2, "\(text)")
        #expect(result.standardError.contains(message), "\(text): \(result.standardError)")
      }
      let missing = try CommandLineRunner.run(
        [
          "entitlements", Self.token, "--database-url", "postgres://x@127.0.0.1:1/db", "--apps",
          folder.appendingPathComponent("none.json").path,
        ])
      #expect(missing.standardError.contains("cannot read the apps file"))
      let noFile = try CommandLineRunner.run(
        [
          "entitlements", Self.token, "--database-url", "postgres://x@127.0.0.1:1/db", "--app",
          "pro", "--bundle-id", "com.example.app",
        ])
      #expect(noFile.status == 2 && noFile.standardError.contains("--app needs an apps file"))
    }
  }

  /// `serve --apps`: an app's change webhook needs its secret in the variable it names.
  @Test func anAppsWebhookWithoutItsSecretStopsServe() throws {
    try Self.withFolder { folder in
      let path = try Self.write(
        #"{"apps": [{"bundleId": "com.example.app", "environments": ["Sandbox"], "changeWebhooks": [{"url": "https://hooks.example.com/in", "secretVariable": "PRO_HOOK_SECRET"}]}]}"#,
        "apps.json", in: folder)
      let result = try CommandLineRunner.run(
        [
          "serve", "--database-url", "postgres://x@127.0.0.1:1/db", "--api-keys", "k", "--apps",
          path,
        ], environment: ["PRO_HOOK_SECRET": ""])
      #expect(result.status == 2)
      #expect(result.standardError.contains("needs its secret in PRO_HOOK_SECRET"))
    }
  }
}
