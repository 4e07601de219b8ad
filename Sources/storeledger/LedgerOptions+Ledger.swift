import AppStoreVerification
import ArgumentParser
import Foundation
import Logging
import PostgresNIO
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres

/// A ledger on the database the options name, run with its pools, and the values the flags
/// carry as lists and catalogs.
extension LedgerOptions {
  /// Opens the ledger on the configured database for `body`, logging warnings and errors only.
  func withLedger<Result: Sendable>(
    _ label: String, _ body: @Sendable (Ledger, Logger) async throws -> Result
  ) async throws -> Result {
    let environment = ProcessInfo.processInfo.environment
    let url = try databaseURL(environment)
    let replicaURLs = try readReplicaURLs(
      environment, primary: url, app: try selectedApp(environment))
    let settings = try replicaSettings(environment)
    var logger = Logger(label: label)
    logger.logLevel = .warning
    let quiet = logger
    // The pools log errors only: PostgresNIO warns when a command's first query leases a
    // connection before the pool's run() has begun (it waits, and works).
    logger.logLevel = .error
    let pools = logger
    try await DatabaseCheck.require(url)
    do {
      let hosts = try DatabaseHosts.primary(url, logger: pools)
      return try await DatabaseHosts.withRunning(hosts) { hosts in
        let client = try await hosts.located(within: .seconds(30))
        let recorded = try await RecordedAppConfiguration.read(on: client, logger: quiet)
        let configuration = try ledgerConfiguration(environment, recorded: recorded)
        return try await Self.withReplicas(
          replicaURLs, of: hosts, settings, logger: quiet, pools: pools
        ) {
          replicas in
          try await body(
            try Ledger(
              hosts: hosts, configuration: configuration, logger: quiet, replicas: replicas),
            quiet)
        }
      }
    } catch let error as LedgerError {
      throw DatabaseCheck.failure(error, url: url)
    }
  }

  /// Runs `body` with the replicas at `urls` (nil when there are none), their clients running.
  static func withReplicas<Result: Sendable>(
    _ urls: [DatabaseURL], of primary: DatabaseHosts, _ settings: ReadReplicas.Settings,
    logger: Logger, pools: Logger, _ body: @Sendable (ReadReplicas?) async throws -> Result
  ) async throws -> Result {
    guard !urls.isEmpty else { return try await body(nil) }
    let replicas = urls.map { url in
      ReadReplica(name: url.address, hosts: DatabaseHosts.replica(url, logger: pools))
    }
    return try await withThrowingTaskGroup(of: Void.self) { group in
      for replica in replicas { group.addTask { await replica.hosts.run() } }
      defer { group.cancelAll() }
      return try await body(
        ReadReplicas(primary: primary, replicas: replicas, settings: settings, logger: logger))
    }
  }

  static func list(_ text: String?) -> [String] {
    (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty }
  }

  static func catalog(_ path: String) throws -> ProductCatalog {
    do {
      return try JSONDecoder().decode(ProductCatalog.self, from: Data(InputReader.bytes(path)))
    } catch {
      throw ValidationError("the catalog \(path) is not a product catalog: \(error)")
    }
  }
}
