import Foundation
import Hummingbird
import Logging
import PostgresNIO
import StoreLedgerPostgres

/// `/health`, `/metrics` and `/openapi.json`: open to anyone who can reach the server, they
/// carry no customer data.
struct OperationsController: Sendable {
  /// Every app's database: healthy when each has a host that accepts writes and answers.
  let hosts: [DatabaseHosts]
  /// The read replicas of each app that has some: reported, not required (the primary
  /// answers every read while they are out).
  let replicas: [ReadReplicas]
  let metrics: ServerMetrics
  let logger: Logger

  struct Health: Encodable {
    let status: String
    let database: String
    /// With a URL naming several hosts: each app database's primary now, and how often it
    /// changed since start.
    var primaries: [Primary]? = nil
    var replicas: [Replica]? = nil
  }

  struct Primary: Encodable {
    let hosts: String
    let primary: String?
    let switches: Int
  }

  struct Replica: Encodable {
    let name: String
    let inRotation: Bool
    let reason: String?
  }

  func register(on router: Router<LedgerRequestContext>) {
    router.get("/health") { _, _ in
      // Each URL's hosts as they are once the check is done (a check may locate a primary).
      let primaries = {
        let asked = hosts.filter(\.asks).map {
          Primary(hosts: $0.url.address, primary: $0.currentHost, switches: $0.status.switches)
        }
        return asked.isEmpty ? nil : asked
      }
      do {
        for database in hosts {
          _ = try await withTimeout(.seconds(2)) { [logger] in
            let client = try await database.located(within: .seconds(2))
            return try await client.execute("SELECT 1", logger: logger)
          }
        }
        let statuses = replicas.flatMap(\.statuses).map {
          Replica(name: $0.name, inRotation: $0.inRotation, reason: $0.reason)
        }
        return try JSONBody.response(
          Health(
            status: "ok", database: "reachable", primaries: primaries(),
            replicas: statuses.isEmpty ? nil : statuses))
      } catch {
        return try JSONBody.response(
          Health(
            status: "unavailable", database: "unreachable", primaries: primaries()),
          status: .serviceUnavailable)
      }
    }
    router.get("/metrics") { _, _ in
      Response(
        status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
        body: .init(byteBuffer: ByteBuffer(string: await metrics.renderWithDatabase())))
    }
    router.get("/openapi.json") { _, _ in
      Response(
        status: .ok, headers: [.contentType: "application/json"],
        body: .init(byteBuffer: ByteBuffer(bytes: try OpenAPIDocument.data())))
    }
  }
}
