import BenchmarkSupport
import Foundation
import Hummingbird
import NIOCore
import NIOHTTP1
import PostgresNIO
import ServiceLifecycle
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerServer
import StoreLedgerTestSupport
import Synchronization

/// What read replicas cost the webhook and what reading right after a write costs: two
/// servers over the same database, one reading the primary alone and one reading a streaming
/// replica under read-your-writes, each ingesting fresh notifications in turn (twice, so the
/// log's growth favours neither), then each answering "ingest, then ask at once" rounds.
struct ReplicaMeasurement {
  let run: ServerBenchmarkRun
  let database: BenchmarkDatabase
  /// The replica's server (its database is the benchmark's).
  let replicaServer: DatabaseURL

  struct Server {
    let name: String
    let load: LoadClient
  }

  func measure() async throws {
    let replica = replicaServer.with(database: database.name).with(username: "storeledger_writer")
    try await waitUntilTheReplicaHasTheDatabase(replica)
    let port = run.options.port
    let primaryOnly = configuration(port: port + 1, replica: nil)
    let withReplica = configuration(port: port + 2, replica: replica)
    let services = ServiceGroup(
      configuration: .init(
        services: [
          try buildApplication(configuration: primaryOnly, logger: run.logger),
          try buildApplication(configuration: withReplica, logger: run.logger),
        ],
        gracefulShutdownSignals: [], logger: run.logger))
    let serving = Task { try await services.run() }
    let servers = [
      Server(
        name: "primary only",
        load: LoadClient(base: "http://127.0.0.1:\(port + 1)", connections: run.options.clients)),
      Server(
        name: "with a replica",
        load: LoadClient(base: "http://127.0.0.1:\(port + 2)", connections: run.options.clients)),
    ]
    do {
      for server in servers { try await run.waitUntilHealthy(server.load) }
      try await compareIngest(servers)
      try await compareReadsAfterWrites(servers)
    } catch {
      print("failed: \(error)")
    }
    for server in servers { try await server.load.shutdown() }
    await services.triggerGracefulShutdown()
    try await serving.value
  }

  private func configuration(port: Int, replica: DatabaseURL?) -> ServerConfiguration {
    var postgres = database.writerURL
    postgres.maximumConnections = 40
    let app = ServedApp(
      name: SignedFixtures.bundleId, database: postgres,
      readReplicas: replica.map { [ServedApp.ReplicaDatabase($0)] } ?? [],
      ledger: run.ledgerConfiguration)
    return ServerConfiguration(
      host: "127.0.0.1", port: port, apps: [app], routesByApp: false,
      apiKeys: [ServerBenchmarkRun.apiKey])
  }

  private func compareIngest(_ servers: [Server]) async throws {
    let count = run.options.notifications / 2
    let clients = run.options.clients
    var seconds = [Double](repeating: 0, count: servers.count)
    var block = 1_000_000
    for round in 0..<2 {
      for (which, server) in servers.enumerated() {
        let bodies = try run.freshBodies(count: count, first: block, named: "replica", prefix: "r")
        block += 1_000_000
        let ingest = try await server.load.run(count: count, workers: clients) { index in
          try await server.load.send(.POST, "/v1/notifications/appstore", body: bodies[index])
        }
        seconds[which] += ingest.seconds
        print(
          "webhook ingest \(server.name), round \(round + 1), \(clients) clients: "
            + "\(rate(count, ingest.seconds)) (statuses \(ingest.statuses))")
      }
    }
    print(
      String(
        format: "RESULT webhook_primary_only_per_s=%.0f webhook_with_replica_per_s=%.0f ratio=%.2f",
        Double(2 * count) / seconds[0], Double(2 * count) / seconds[1], seconds[0] / seconds[1]))
  }

  /// Each client ingests a new customer's purchase and asks for its entitlements at once:
  /// every answer must hold the purchase; the replica server's metrics say which answers the
  /// replica gave.
  private func compareReadsAfterWrites(_ servers: [Server]) async throws {
    let clients = run.options.clients
    let count = run.options.notifications / 2
    for (which, server) in servers.enumerated() {
      let first = 10_000_000 + which * count
      let bodies = try run.freshBodies(count: count, first: first, named: "replica", prefix: "r")
      let before = try await replicaReads(server.load)
      let tally = PairTally()
      let pairs = try await server.load.run(count: count, workers: clients) { index in
        let sent = ContinuousClock.now
        let stored = try await server.load.send(
          .POST, "/v1/notifications/appstore", body: bodies[index])
        guard stored == 200 else { return stored }
        let account = LedgerFixtures.account(10_000_000 + first + index)
        let read = try await server.load.exchange(
          .GET, "/v1/accounts/\(account)/entitlements", bearer: ServerBenchmarkRun.apiKey)
        tally.add(
          seconds: (ContinuousClock.now - sent).seconds,
          holdsTheWrite: Self.holdsAnActiveEntitlement(read.body))
        return read.status
      }
      let after = try await replicaReads(server.load)
      let (latencies, missing) = tally.result
      print(
        "ingest then read at once, \(server.name), \(clients) clients: "
          + "\(rate(count, pairs.seconds)) pairs, p50 \(milliseconds(percentile(latencies, 0.5))), "
          + "p99 \(milliseconds(percentile(latencies, 0.99))), statuses \(pairs.statuses), "
          + "reads missing their write: \(missing), answered by the replica: "
          + "\(after.replica - before.replica), by the primary: \(after.primary - before.primary)")
    }
  }

  /// Whether an entitlements answer lists one active entitlement (the purchase just sent).
  static func holdsAnActiveEntitlement(_ body: ByteBuffer) -> Bool {
    let answer = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))
    let entitlements = (answer as? [String: Any])?["entitlements"] as? [[String: Any]]
    return entitlements?.count == 1 && entitlements?[0]["active"] as? Bool == true
  }

  /// Reads answered by the replica and by the primary (the replica server's counters; zero on
  /// a server without replicas).
  private func replicaReads(_ load: LoadClient) async throws -> (replica: Int, primary: Int) {
    let text = String(buffer: try await load.exchange(.GET, "/metrics").body)
    func sample(_ answered: String) -> Int {
      text.split(separator: "\n")
        .first { $0.hasPrefix("storeledger_read_replica_reads_total{") && $0.contains(answered) }
        .flatMap { $0.split(separator: " ").last }.flatMap { Int($0) } ?? 0
    }
    return (sample(#"answered="replica""#), sample(#"answered="primary""#))
  }

  private func waitUntilTheReplicaHasTheDatabase(_ replica: DatabaseURL) async throws {
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
      let found = try? await PostgresClient.withRunningClient(replica, logger: run.logger) {
        client in
        try await client.query("SELECT 1 FROM storeledger.events LIMIT 1", logger: run.logger)
          .collect().count
      }
      if found != nil { return }
      try await Task.sleep(for: .milliseconds(100))
    }
    throw ServerBenchmarkOptions.UsageError(
      description: "the replica did not replay the benchmark's database within 30 s")
  }
}

/// Each pair's time and whether its read held its write, from every client.
final class PairTally: Sendable {
  private let state = Mutex((latencies: [Double](), missing: 0))
  func add(seconds: Double, holdsTheWrite: Bool) {
    state.withLock {
      $0.latencies.append(seconds)
      if !holdsTheWrite { $0.missing += 1 }
    }
  }
  var result: (latencies: [Double], missing: Int) { state.withLock { $0 } }
}
