import ServiceLifecycle
import StoreLedgerPostgres

/// The recheck of a database URL's chosen host (``DatabaseHosts/watch()``) as a service of
/// the application: after the pools in the group, so it stops before them.
struct HostsWatchService: Service {
  let hosts: DatabaseHosts

  func run() async throws {
    await cancelWhenGracefulShutdown {
      await hosts.watch()
    }
  }
}
