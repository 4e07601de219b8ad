import ServiceLifecycle
import StoreLedgerPostgres

/// Checks the read replicas for as long as the application runs (``ReadReplicas/monitor()``):
/// takes out those unreachable or too far behind and puts them back when they recover.
struct ReplicaMonitorService: Service {
  let replicas: ReadReplicas

  func run() async throws {
    try await cancelWhenGracefulShutdown {
      await replicas.monitor()
    }
  }
}
