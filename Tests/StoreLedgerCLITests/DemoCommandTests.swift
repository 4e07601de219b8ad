import AppStoreSimulator
import AppStoreVerification
import Foundation
import PostgresNIO
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// `storeledger demo` as a process at a small size on the test cluster: what it prints is
/// what the simulator knows to be true.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct DemoCommandTests {
  /// The fields of the demo's JSON summary the test checks.
  struct Summary: Decodable {
    var accounts: Int
    var subscriptionsByStatus: [String: Int]
    var entitlements: [String: Int]
    var consumables: [Balance]
    var notifications: Int
    var delivered: Int
    var dropped: Int
    var recoveryAppended: Int
    var events: Int
    var auditConsistent: Bool
    var auditSignatures: Int
    var queries: Throughput?
    var ingest: Throughput?
    var asOf: Int64
    var truth: Truth
    var migratedCustomers: [String]
    var consumption: Consumption
    var migratedReceipts: Int
    var checks: Checks
    var changes: Changes
    var seats: Seats
    var grants: Grants
    var billingRetry: BillingRetry
    var relayed: Relayed
    var unrouted: Int
    var metrics: Metrics

    /// StoreLedger's metrics against the simulated store's own books.
    struct Metrics: Decodable {
      var months: Int
      var currencies: [String]
      var compared: Int
      var differences: [String]
      var grossRevenue: [String: Int64]
      var trialStarts: Int64
      var trialConversions: Int64
    }

    struct Relayed: Decodable {
      var delivered: Int
      var accepted: Int
      var requests: Int
      var failed: Int
      var pending: Int
      var dead: Int
      var attemptsInLog: Int
    }

    struct BillingRetry: Decodable {
      var stages: [Stage]
      struct Stage: Decodable {
        var after: String
        var listed: Int
        var books: Int
        var apart: Int
        var unheard: Int
      }
    }

    struct Grants: Decodable {
      var booksAccounts: Int
      var enteredBillingRetry: Int
      var granted: Int
      var refused: Int
      var grantedAgain: Int
      var alreadyGranted: Int
      var entitled: Int
    }

    struct Seats: Decodable {
      var members: Int
      var membersAgree: Int
      var disagreements: [String]
    }

    struct Changes: Decodable {
      var derived: Int
      var delivered: Int
      var badSignatures: Int
    }

    struct Checks: Decodable {
      var webhookCheckPassed: Bool
      var offersSigned: Int
    }

    struct Consumption: Decodable {
      var received: Int
      var answered: Int
      var late: Int
      var refunded: Int
      var declined: Int
    }

    struct Truth: Decodable {
      var accounts: Int
      var agree: Int
      var disagreements: [String]
    }

    struct Balance: Decodable {
      var productId: String
      var balance: Int64
    }
    struct Throughput: Decodable {
      var count: Int
      var seconds: Double
    }
  }

  /// `demo --keep` leaves the console open on the demo's customers: it prints the address and
  /// a key, the key signs in, and Ctrl-C stops it cleanly.
  @Test func withKeepTheConsoleStaysOpenWithAKey() async throws {
    try await TestDatabase.withMigrated { database in
      let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("demo-\(UUID().uuidString)")
      defer { try? FileManager.default.removeItem(at: folder) }
      let process = Process()
      process.executableURL = CommandLineRunner.executable
      process.arguments = [
        "demo", "--customers", "20", "--months", "3", "--queries", "20", "--keep",
        "--database-url", database.adminURL.description, "--directory", folder.path,
      ]
      let output = Pipe()
      process.standardOutput = output
      process.standardError = FileHandle.nullDevice
      let lines = LogLines()
      output.fileHandleForReading.readabilityHandler = { lines.append($0.availableData) }
      try process.run()
      defer { if process.isRunning { process.terminate() } }
      var console: String?
      var key: String?
      for _ in 0..<600 where key == nil {
        try await Task.sleep(for: .milliseconds(200))
        let text = lines.text
        if let range = text.range(of: "sign in with the API key ") {
          key = text[range.upperBound...].split(separator: "\n").first.map(String.init)
          console = text.split(separator: "\n").first { $0.contains("/console") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        }
      }
      let address = try #require(console)
      let bearer = try #require(key)
      #expect(address.hasPrefix("http://127.0.0.1:") && address.hasSuffix("/console"))
      #expect(lines.text.contains("accounts"), "the summary comes first")
      let signIn = try await HTTPProbe.get("\(address)/sign-in")
      #expect(signIn.status == 200)
      // Signed in, the redirect lands on the overview with the session cookie.
      let posted = try await HTTPProbe.post(
        "\(address)/sign-in", body: "key=\(bearer)",
        contentType: "application/x-www-form-urlencoded")
      #expect(posted.status == 200)
      #expect(String(decoding: posted.body, as: UTF8.self).contains("Subscriptions by status"))
      // The hint works as printed: the binary's absolute path, and the URL alone.
      #expect(lines.text.contains("\(CommandLineRunner.executable.path) entitlements TOKEN"))
      let token = try await database.asAdmin { client in
        try await client.query(
          "SELECT app_account_token FROM storeledger.account_views ORDER BY 1 LIMIT 1",
          logger: TestDatabase.logger
        ) { rows in
          var token = ""
          for try await value in rows.decode(String.self) { token = value }
          return token
        }
      }
      let asked = try CommandLineRunner.run(
        ["entitlements", token, "--database-url", database.writerURL.description])
      #expect(asked.status == 0, "\(asked.standardError)")
      #expect(asked.standardOutput.contains("entitlement"), "\(asked.standardOutput)")
      process.interrupt()
      process.waitUntilExit()
      #expect(process.terminationStatus == 0)
    }
  }

  @Test func aSmallDemoPrintsWhatTheSimulatorKnowsToBeTrue() async throws {
    try await TestDatabase.withMigrated { database in
      let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("demo-\(UUID().uuidString)")
      defer { try? FileManager.default.removeItem(at: folder) }
      let result = try CommandLineRunner.run([
        "demo", "--customers", "50", "--seed", "11", "--drop", "0.1", "--queries", "200",
        "--json", "--database-url", database.adminURL.description, "--directory", folder.path,
      ])
      #expect(result.status == 0, "\(result.standardError)")
      #expect(!result.standardError.contains(" error "), "a run that succeeded logs no error")
      let summary = try JSONDecoder().decode(Summary.self, from: Data(result.standardOutput.utf8))
      // Customers migrated from their receipts are accounts too.
      // The simulated year ends at the start of a day that began six hours ago or more (UTC):
      // nothing is signed in the future, even just after midnight.
      let day = SimulationConfiguration.day
      let today = Int64(Date().timeIntervalSince1970 * 1000) / day * day
      #expect(summary.asOf == today || summary.asOf == today - day, "ended \(summary.asOf)")
      let future = try await database.asAdmin { client in
        try await client.query(
          "SELECT count(*) FROM storeledger.events WHERE apple_signed_at > now()",
          logger: TestDatabase.logger
        ) { rows in
          var count: Int64 = -1
          for try await value in rows.decode(Int64.self) { count = value }
          return count
        }
      }
      #expect(future == 0, "no event signed in the future")
      let truth = try Self.truth(
        customers: 50, seed: 11, migrated: Set(summary.migratedCustomers),
        start: Timestamp(milliseconds: summary.asOf - 12 * SimulationConfiguration.period))
      #expect(summary.migratedReceipts == summary.migratedCustomers.count)
      #expect(summary.migratedReceipts > 0)
      #expect(summary.checks.webhookCheckPassed && summary.checks.offersSigned == 1)
      // Every change the ledger derived reached the demo's receiver, signature checked.
      #expect(summary.changes.derived > summary.accounts)
      #expect(summary.changes.delivered == summary.changes.derived)
      #expect(summary.changes.badSignatures == 0)
      // Every refund request played live is answered in time; Apple decides each.
      #expect(summary.consumption.received > 0)
      #expect(summary.consumption.answered == summary.consumption.received)
      #expect(summary.consumption.late == 0)
      #expect(
        summary.consumption.refunded + summary.consumption.declined == summary.consumption.answered)
      #expect(summary.asOf == truth.end.milliseconds)
      #expect(summary.subscriptionsByStatus == truth.statuses)
      // Members given a seat of a group subscription are accounts too.
      #expect(summary.accounts == truth.accounts + summary.seats.members)
      #expect(summary.seats.membersAgree == summary.seats.members)
      #expect(summary.seats.disagreements == [])
      // The bulk grant after the declared outage: each account that entered billing retry in it
      // granted once (a second run grants nobody) and holding pro now.
      #expect(summary.grants.granted == summary.grants.enteredBillingRetry)
      // Selected on Apple's clock: the accounts the books say entered billing retry in it.
      #expect(summary.grants.enteredBillingRetry == summary.grants.booksAccounts)
      // Who entered billing retry in the year's last 7 days is the books' list once the
      // recovery has brought what the webhook lost (and the replay changed nothing of it).
      #expect(summary.billingRetry.stages.map(\.after) == ["year", "replay", "recovery"])
      #expect(summary.billingRetry.stages.last?.apart == 0, "\(summary.billingRetry.stages)")
      // After the year alone, an entry is missing only when its news was lost on the way, and
      // none is listed that the books lack.
      if let year = summary.billingRetry.stages.first {
        #expect(year.apart == year.unheard && year.listed + year.unheard == year.books)
      }
      #expect(summary.grants.refused == 0 && summary.grants.grantedAgain == 0)
      #expect(summary.grants.alreadyGranted == summary.grants.granted)
      #expect(summary.grants.entitled == summary.grants.granted)
      // Every notification stored reached the staging backend once, though it failed now and
      // then; each request it got is an attempt in the log.
      #expect(summary.relayed.delivered >= summary.delivered)
      #expect(summary.relayed.accepted == summary.relayed.delivered)
      #expect(summary.relayed.failed > 0 && summary.relayed.pending == 0)
      #expect(summary.relayed.dead == 0)
      #expect(summary.relayed.attemptsInLog == summary.relayed.requests)
      // Every month's charges, refunds, reversals and new subscriptions, from the log, equal
      // what the simulated store booked as it charged.
      #expect(summary.metrics.differences == [])
      #expect(summary.metrics.compared >= 7 * 12)
      #expect(summary.metrics.currencies == ["USD"])
      #expect((summary.metrics.grossRevenue["USD"] ?? 0) > 0)
      #expect(summary.metrics.trialStarts > 0)
      #expect(summary.consumables.map(\.balance) == [truth.gemUnits])
      #expect(summary.dropped > 0 && summary.delivered + summary.dropped == summary.notifications)
      #expect(summary.recoveryAppended <= summary.dropped)
      #expect(summary.auditConsistent && summary.auditSignatures > summary.delivered)
      #expect(summary.queries?.count == 200 && summary.ingest?.count ?? 0 >= summary.delivered)
      #expect(summary.events > summary.notifications)
      // Every account agrees with the simulator's own truth at the end (status, product,
      // entitlements), and the text output says so in one line.
      #expect(summary.truth.accounts == truth.accounts && summary.truth.accounts > 0)
      #expect(summary.truth.disagreements == [])
      #expect(summary.truth.agree == summary.truth.accounts)
      #expect(
        summary.entitlements["pro", default: 0] + summary.entitlements["basic", default: 0] > 0)
      // The root certificate and catalog are left for querying the database afterwards.
      #expect(FileManager.default.fileExists(atPath: folder.path + "/root.der"))
      #expect(FileManager.default.fileExists(atPath: folder.path + "/catalog.json"))
    }
  }

  @Test func withoutADatabaseURLItRunsAPrivateClusterAndRemovesIt() throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("demo-private-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let result = try CommandLineRunner.run(
      ["demo", "--customers", "8", "--months", "3", "--queries", "20", "--directory", folder.path],
      environment: ["DATABASE_URL": ""])
    #expect(result.status == 0, "\(result.standardError)")
    #expect(result.standardOutput.contains("a private cluster in \(folder.path)/postgres"))
    #expect(result.standardOutput.contains("Audit              consistent"))
    #expect(result.standardOutput.contains("Truth              "))
    #expect(result.standardOutput.contains("disagreements"))
    #expect(!FileManager.default.fileExists(atPath: folder.path + "/postgres"))
  }

  @Test func ctrlCStopsEverythingAndRemovesThePrivateCluster() async throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("demo-interrupted-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let output = folder.appendingPathComponent("out.txt")
    FileManager.default.createFile(atPath: output.path, contents: nil)
    let process = Process()
    process.executableURL = CommandLineRunner.executable
    process.arguments = ["demo", "--customers", "400", "--directory", folder.path]
    var environment = ProcessInfo.processInfo.environment
    environment["DATABASE_URL"] = nil
    process.environment = environment
    process.standardOutput = try FileHandle(forWritingTo: output)
    process.standardError = FileHandle.nullDevice
    try process.run()
    // Interrupt as soon as the cluster is up: whatever runs then stops, and the cluster goes.
    for _ in 0..<300 {
      if (try? String(contentsOf: output, encoding: .utf8))?.contains("a private cluster") == true {
        break
      }
      try await Task.sleep(for: .milliseconds(100))
    }
    process.interrupt()
    process.waitUntilExit()
    let printed = try String(contentsOf: output, encoding: .utf8)
    #expect(process.terminationStatus == 130, "\(printed)")
    #expect(printed.hasSuffix("interrupted: everything stopped\n"))
    #expect(!FileManager.default.fileExists(atPath: folder.path + "/postgres"))
  }

  @Test func helpShowsExamplesAndBadSettingsAreUsageErrors() throws {
    let help = try CommandLineRunner.run(["demo", "--help"])
    #expect(help.status == 0 && help.standardOutput.contains("swift run storeledger demo"))
    #expect(try CommandLineRunner.run(["demo", "--drop", "1.5"]).status == 2)
    #expect(try CommandLineRunner.run(["demo", "--customers", "0"]).status == 2)
  }

  /// The simulator's own answers for the accounts the demo can see (customers with a token),
  /// at the simulation's end.
  static func truth(
    customers: Int, seed: UInt64, migrated: Set<String> = [], start: Timestamp
  ) throws -> (
    end: Timestamp, statuses: [String: Int], accounts: Int, gemUnits: Int64
  ) {
    let simulation = Simulation(
      SimulationConfiguration(customers: customers, months: 12, seed: seed, start: start))
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: "com.example.app", appAppleId: 1_234_567_890),
      signer: try TestPKI(), now: simulation.configuration.start)
    let end = simulation.configuration.end
    simulation.apply(to: store, through: end)
    let tokens = Dictionary(
      uniqueKeysWithValues: simulation.truth.customers.map {
        ($0.id, migrated.contains($0.id) ? "migrated" : $0.appAccountToken)
      })
    var statuses: [String: Int] = [:]
    for id in simulation.truth.subscriptions {
      guard let customer = store.customer(of: id), tokens[customer] ?? nil != nil,
        let status = simulation.truth.status(of: id, at: end)
      else { continue }
      statuses[String(status.rawValue), default: 0] += 1
    }
    let buyers = Set(
      store.notifications().compactMap { $0.transactionId.flatMap(store.customer(of:)) })
    let accounts = buyers.filter { tokens[$0] ?? nil != nil }.count
    let gems = simulation.truth.consumableUnits.filter { key, _ in
      tokens[String(key.split(separator: "/")[0])] ?? nil != nil
    }.values.reduce(0, +)
    return (end, statuses, accounts, gems * 100)
  }
}
