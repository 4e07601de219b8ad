import BenchmarkSupport
import Foundation
import Hummingbird
import NIOHTTP1
import ServiceLifecycle
import StoreLedger
import StoreLedgerPostgres
import StoreLedgerServer
import StoreLedgerTestSupport

/// What naming every node of a failover formation costs the webhook: two servers over the same
/// database on the formation's primary, one given the primary's own address and one the URL
/// naming both nodes (`target_session_attrs=read-write`), each ingesting fresh notifications in
/// turn, twice, so the log's growth favours neither.
struct HostsMeasurement {
  let run: ServerBenchmarkRun
  /// The formation's URL, naming every node.
  let formation: DatabaseURL

  func measure() async throws {
    let hosts = try DatabaseHosts.primary(formation, logger: run.logger)
    _ = try await hosts.located(within: .seconds(30))
    guard let primary = formation.hosts.first(where: { $0.description == hosts.currentHost })
    else {
      throw ServerBenchmarkOptions.UsageError(description: "no node of the formation is primary")
    }
    var single = formation
    single.hosts = [primary]
    single.targetSessionAttributes = .any
    let database = try await BenchmarkDatabase.create(on: single, setupSQL: [], logger: run.logger)
    do {
      try await compare(database)
      try await database.drop()
    } catch {
      try? await database.drop()
      throw error
    }
  }

  private func compare(_ database: BenchmarkDatabase) async throws {
    let port = run.options.port
    var oneHost = database.writerURL
    oneHost.maximumConnections = 40
    var allHosts = formation.with(database: database.name).with(username: "storeledger_writer")
    allHosts.maximumConnections = 40
    let services = ServiceGroup(
      configuration: .init(
        services: [
          try buildApplication(
            configuration: configuration(oneHost, port: port + 1), logger: run.logger),
          try buildApplication(
            configuration: configuration(allHosts, port: port + 2), logger: run.logger),
        ],
        gracefulShutdownSignals: [], logger: run.logger))
    let serving = Task { try await services.run() }
    let servers = [
      (
        "the primary's address",
        LoadClient(base: "http://127.0.0.1:\(port + 1)", connections: run.options.clients)
      ),
      (
        "every node's address",
        LoadClient(base: "http://127.0.0.1:\(port + 2)", connections: run.options.clients)
      ),
    ]
    do {
      for (_, load) in servers { try await run.waitUntilHealthy(load) }
      let count = run.options.notifications / 2
      let clients = run.options.clients
      var seconds = [Double](repeating: 0, count: servers.count)
      var block = 20_000_000
      for round in 0..<2 {
        for (which, (name, load)) in servers.enumerated() {
          let bodies = try run.freshBodies(count: count, first: block, named: "hosts", prefix: "h")
          block += 1_000_000
          let ingest = try await load.run(count: count, workers: clients) { index in
            try await load.send(.POST, "/v1/notifications/appstore", body: bodies[index])
          }
          seconds[which] += ingest.seconds
          print(
            "webhook ingest, \(name), round \(round + 1), \(clients) clients: "
              + "\(rate(count, ingest.seconds)) (statuses \(ingest.statuses))")
        }
      }
      print(
        String(
          format: "RESULT webhook_one_host_per_s=%.0f webhook_every_host_per_s=%.0f ratio=%.2f",
          Double(2 * count) / seconds[0], Double(2 * count) / seconds[1], seconds[0] / seconds[1]))
    } catch {
      print("failed: \(error)")
    }
    for (_, load) in servers { try await load.shutdown() }
    await services.triggerGracefulShutdown()
    try await serving.value
  }

  private func configuration(_ url: DatabaseURL, port: Int) -> ServerConfiguration {
    ServerConfiguration(
      host: "127.0.0.1", port: port, database: url, ledger: run.ledgerConfiguration,
      apiKeys: [ServerBenchmarkRun.apiKey])
  }
}
