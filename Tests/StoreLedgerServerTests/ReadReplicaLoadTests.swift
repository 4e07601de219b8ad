import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerServer
import StoreLedgerTestSupport
import Synchronization
import Testing

/// The server with a real streaming replica under webhook load: every ingest is followed by
/// a query that must already see it; the replica is stopped in the middle and started again.
/// No answer is wrong, no request fails, and the replica answers again at the end.
@Suite(.enabled(if: TestDatabase.shouldRun && TestReplica.shouldRun), .serialized)
struct ReadReplicaLoadTests {
  typealias F = LedgerFixtures
  typealias H = ServerHarness

  final class Tally: Sendable {
    struct Counts {
      var ingests = 0
      var problems: [String] = []
    }
    let counts = Mutex(Counts())
    let done = Atomic(false)

    var ingests: Int { counts.withLock { $0.ingests } }
    func ingested() { counts.withLock { $0.ingests += 1 } }
    func problem(_ text: String) { counts.withLock { $0.problems.append(text) } }
  }

  static func configuration(_ database: TestDatabase, replica: DatabaseURL) -> ServerConfiguration {
    let settings = ReadReplicas.Settings(
      maximumWait: .seconds(1), maximumLag: .seconds(2), probeInterval: .milliseconds(100),
      replicaTimeout: .seconds(1))
    let app = ServedApp(
      name: SignedFixtures.bundleId, database: database.writerURL,
      readReplicas: [ServedApp.ReplicaDatabase(replica)], replicaSettings: settings,
      ledger: H.configuration(database).apps[0].ledger)
    return ServerConfiguration(
      apps: [app], routesByApp: false, apiKeys: [H.apiKey])
  }

  @Test func readYourWritesHoldsWhileTheReplicaStopsAndStarts() async throws {
    try await TestDatabase.withMigrated { database in
      let replica = try await TestReplica.url(of: database)
      let application = try buildApplication(
        configuration: Self.configuration(database, replica: replica), logger: ServerHarness.logger)
      try await application.test(.ahc(.http)) { client in
        let tally = Tally()
        try await withThrowingTaskGroup(of: Void.self) { group in
          for worker in 0..<4 {
            group.addTask { try await Self.load(worker, client, tally) }
          }
          group.addTask {
            defer { tally.done.store(true, ordering: .sequentiallyConsistent) }
            try await Self.stopAndStartTheReplica(during: tally, client)
          }
          try await group.waitForAll()
        }
        let counts = tally.counts.withLock { $0 }
        #expect(counts.problems.isEmpty, "\(counts.problems.prefix(5))")
        #expect(counts.ingests >= 120)
      }
    }
  }

  /// Customers' renewals (a new customer every 100 days), each sent through the webhook and
  /// then asked for at once.
  static func load(_ worker: Int, _ client: any TestClientProtocol, _ tally: Tally)
    async throws
  {
    var step = 0
    while !tally.done.load(ordering: .sequentiallyConsistent) {
      let (customer, n) = step.quotientAndRemainder(dividingBy: 100)
      let token = F.account(1000 * worker + customer)
      let original = "9\(worker)\(customer)0000"
      let transaction = F.transaction(
        n == 0 ? original : "9\(worker)\(customer)\(10_000 + n)", original: original,
        purchased: Double(n), expires: Double(n + 1), token: token)
      let sent = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post,
        body: H.webhookBody(
          try H.signed.notification(
            n == 0 ? .subscribed : .didRenew, n == 0 ? .initialBuy : nil,
            uuid: "rr-load-\(worker)-\(step)", transaction: transaction)))
      guard sent.status == .ok else {
        tally.problem("webhook \(worker)/\(step): \(sent.status)")
        return
      }
      tally.ingested()
      let at = F.t(Double(n) + 0.5).date.formatted(.iso8601)
      let path = "/v1/accounts/\(token)/entitlements?at=\(at)"
      let read = try await client.execute(uri: path, method: .get, headers: H.authorized)
      let exact = try await client.execute(
        uri: path + "&consistency=exact", method: .get, headers: H.authorized)
      guard read.status == .ok, exact.status == .ok else {
        tally.problem("query \(worker)/\(step): \(read.status) \(exact.status)")
        return
      }
      let answer = try H.value(read)
      let ends = try JSONDecoder().decode(
        JSONValue.self, from: JSONEncoder().encode(F.t(Double(n + 1))))
      guard case .object(let body) = answer, case .array(let items)? = body["entitlements"],
        items.count == 1, case .object(let item) = items[0], item["active"] == .bool(true),
        item["expiresDate"] == ends, answer == (try H.value(exact))
      else {
        tally.problem("step \(step) of worker \(worker) is not seen right after its ingest")
        return
      }
      step += 1
    }
  }

  /// Lets the load run, stops the replica, lets it run, starts it again, and waits until the
  /// replica is back in rotation and has answered reads again.
  static func stopAndStartTheReplica(during tally: Tally, _ client: any TestClientProtocol)
    async throws
  {
    try await waitFor(ingests: 40, tally)
    let before = try await replicaReads(client)
    #expect(before.served > 0, "the replica answered before it was stopped")
    try TestReplica.stop()
    do {
      try await waitFor(ingests: tally.ingests + 40, tally)
      #expect(try await replicaReads(client).inRotation == false)
    } catch {
      try? TestReplica.start()
      throw error
    }
    try TestReplica.start()
    let restarted = try await replicaReads(client)
    let deadline = ContinuousClock.now + .seconds(60)
    while ContinuousClock.now < deadline {
      let now = try await replicaReads(client)
      if now.inRotation, now.served > restarted.served + 20 { break }
      try await Task.sleep(for: .milliseconds(100))
    }
    let after = try await replicaReads(client)
    let health = try await client.execute(uri: "/health", method: .get)
    #expect(after.inRotation, "\(String(buffer: health.body))")
    #expect(after.served > restarted.served + 20, "the replica answers again after its restart")
    try await waitFor(ingests: tally.ingests + 20, tally)
  }

  static func waitFor(ingests target: Int, _ tally: Tally) async throws {
    let deadline = ContinuousClock.now + .seconds(60)
    while tally.ingests < target, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(20))
    }
  }

  /// The replica's rotation gauge and the reads it answered, from /metrics.
  static func replicaReads(_ client: any TestClientProtocol) async throws
    -> (inRotation: Bool, served: Int)
  {
    let response = try await client.execute(uri: "/metrics", method: .get)
    let text = String(buffer: response.body)
    func sample(_ prefix: String, _ label: String? = nil) -> Int? {
      text.split(separator: "\n").first { $0.hasPrefix(prefix) && label.map($0.contains) ?? true }
        .flatMap { $0.split(separator: " ").last }.flatMap { Int($0) }
    }
    return (
      sample("storeledger_read_replica_in_rotation{") == 1,
      sample("storeledger_read_replica_reads_total{", "answered=\"replica\"") ?? 0
    )
  }
}
