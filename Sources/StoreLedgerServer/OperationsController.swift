import Foundation
import Hummingbird
import Logging
import PostgresNIO
import StoreLedgerPostgres

/// `/health`, `/metrics` and `/openapi.json`: open to anyone who can reach the server, they
/// carry no customer data.
struct OperationsController: Sendable {
  /// Every app's database: healthy when all of them answer.
  let clients: [PostgresClient]
  /// The read replicas of each app that has some: reported, not required (the primary
  /// answers every read while they are out).
  let replicas: [ReadReplicas]
  let metrics: ServerMetrics
  let logger: Logger

  struct Health: Encodable {
    let status: String
    let database: String
    var replicas: [Replica]? = nil
  }

  struct Replica: Encodable {
    let name: String
    let inRotation: Bool
    let reason: String?
  }

  func register(on router: Router<BasicRequestContext>) {
    router.get("/health") { _, _ in
      do {
        for client in clients {
          _ = try await withTimeout(.seconds(2)) { [logger] in
            try await client.execute("SELECT 1", logger: logger)
          }
        }
        let statuses = replicas.flatMap(\.statuses).map {
          Replica(name: $0.name, inRotation: $0.inRotation, reason: $0.reason)
        }
        return try JSONBody.response(
          Health(
            status: "ok", database: "reachable", replicas: statuses.isEmpty ? nil : statuses))
      } catch {
        return try JSONBody.response(
          Health(status: "unavailable", database: "unreachable"), status: .serviceUnavailable)
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
