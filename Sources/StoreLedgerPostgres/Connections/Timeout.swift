import Synchronization

/// Thrown by ``withTimeout(_:_:)`` when the work did not finish in time.
public struct TimeoutError: Error, CustomStringConvertible {
  public let limit: Duration
  public var description: String { "no answer within \(limit)" }
}

/// Runs `body` and returns its result, or throws ``TimeoutError`` once `limit` has passed,
/// cancelling `body`: PostgresNIO's pool keeps trying to connect to a server that is down
/// until its lease is cancelled, and callers that must answer (a webhook that should say 503
/// so Apple retries) put a limit on it with this.
///
/// The limit is a deadline that holds whatever `body` does: a statement waiting on a lock
/// or a full disk does not notice cancellation, so `body` runs on in its own task and its
/// late result is dropped (a write may still commit; an idempotent retry then finds it). A
/// task group would wait for it before returning.
public func withTimeout<Result: Sendable>(
  _ limit: Duration, _ body: @escaping @Sendable () async throws -> Result
) async throws -> Result {
  let work = Task { try await body() }
  return try await withTaskCancellationHandler {
    try await withCheckedThrowingContinuation { continuation in
      let outcome = FirstOutcome(continuation)
      let timer = Task {
        guard (try? await Task.sleep(for: limit)) != nil else { return }
        outcome.resume(with: .failure(TimeoutError(limit: limit)))
        work.cancel()
      }
      Task {
        let result = await work.result
        timer.cancel()
        outcome.resume(with: result)
      }
    }
  } onCancel: {
    work.cancel()
  }
}

/// Resumes a continuation with whichever outcome comes first.
final class FirstOutcome<Value: Sendable>: Sendable {
  private let continuation: Mutex<CheckedContinuation<Value, any Error>?>

  init(_ continuation: CheckedContinuation<Value, any Error>) {
    self.continuation = Mutex(continuation)
  }

  func resume(with result: Result<Value, any Error>) {
    continuation.withLock { $0.take() }?.resume(with: result)
  }
}
