import ServiceLifecycle
import StoreLedger

/// The refund-request worker as a service of the application: starts with it and stops at
/// graceful shutdown. A stop between sending and recording is safe (see ``ConsumptionWorker``).
struct ConsumptionWorkerService: Service {
  let worker: ConsumptionWorker

  func run() async throws {
    try await cancelWhenGracefulShutdown {
      do {
        try await worker.run()
      } catch is CancellationError {}
    }
  }
}
