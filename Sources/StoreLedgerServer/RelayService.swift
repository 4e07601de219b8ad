import ServiceLifecycle
import StoreLedger

/// Relaying Apple's notifications to the stored targets as a service of the application:
/// starts with it and stops at graceful shutdown (a relay cut off is sent again after its
/// lease, see ``Relayer``).
struct RelayService: Service {
  let relayer: Relayer

  func run() async throws {
    await cancelWhenGracefulShutdown {
      await relayer.run()
    }
  }
}
