import ServiceLifecycle
import StoreLedger

/// The account projector as a service of the application: starts with it, and stops at
/// graceful shutdown (after the HTTP server, before the database pool).
struct AccountProjectorService: Service {
  let projector: AccountProjector

  func run() async throws {
    await cancelWhenGracefulShutdown {
      await projector.run()
    }
  }
}
