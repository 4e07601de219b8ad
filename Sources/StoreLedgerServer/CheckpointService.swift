import Logging
import ServiceLifecycle
import StoreLedger

/// Signs a checkpoint of the log every interval (when something was appended). A failure is
/// logged and tried again next round; a log that diverged from what was signed is logged as
/// an error every round and never signed over.
struct CheckpointService: Service {
  let checkpointer: LogCheckpointer
  let forwarder: CheckpointForwarder?
  let interval: Duration
  let logger: Logger

  func run() async throws {
    await cancelWhenGracefulShutdown {
      while !Task.isCancelled {
        do {
          try await checkpointer.publish()
          if let forwarder,
            let newest = try checkpointer.directory.checkpoints().last?.checkpoint
          {
            await forwarder.forward(newest)
          }
        } catch let error as CheckpointError {
          logger.error(
            "signed checkpoint refused",
            metadata: ["code": "\(error.code)", "reason": "\(error.message)"])
        } catch {
          if Task.isCancelled { return }
          logger.warning(
            "signing a checkpoint failed; trying again", metadata: ["error": "\(error)"])
        }
        try? await Task.sleep(for: interval)
      }
    }
  }
}
