import ServiceLifecycle
import StoreLedger

/// The revenue projector as a service of the application, beside the account projector.
struct RevenueProjectorService: Service {
  let projector: RevenueProjector

  func run() async throws {
    await cancelWhenGracefulShutdown {
      await projector.run()
    }
  }
}
