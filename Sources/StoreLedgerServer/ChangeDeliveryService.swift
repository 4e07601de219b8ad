import ServiceLifecycle
import StoreLedger

/// Webhook delivery of the change feed as a service of the application: starts with it and
/// stops at graceful shutdown (a delivery cut off is sent again, see ``ChangeDeliverer``).
struct ChangeDeliveryService: Service {
  let deliverer: ChangeDeliverer

  func run() async throws {
    await cancelWhenGracefulShutdown {
      await deliverer.run()
    }
  }
}
