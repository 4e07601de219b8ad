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
  let metrics: ServerMetrics
  let logger: Logger

  struct Health: Encodable {
    let status: String
    let database: String
  }

  func register(on router: Router<BasicRequestContext>) {
    router.get("/health") { _, _ in
      do {
        for client in clients {
          _ = try await withTimeout(.seconds(2)) { [logger] in
            try await client.execute("SELECT 1", logger: logger)
          }
        }
        return try JSONBody.response(Health(status: "ok", database: "reachable"))
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
