import Synchronization

/// Thrown by ``withTimeout(_:_:)`` when the work did not finish in time.
public struct TimeoutError: Error, CustomStringConvertible {
  public let limit: Duration
  public var description: String { "no answer within \(limit)" }
}

/// Runs `body` and returns its result, or throws ``TimeoutError`` after `limit`, even when
/// `body` ignores cancellation: it is cancelled and left to finish on its own. PostgresNIO's
/// pool keeps trying to connect to a server that is down; callers that must answer (a
/// webhook that should say 503 so Apple retries) put a limit on it with this.
public func withTimeout<Result: Sendable>(
  _ limit: Duration, _ body: @escaping @Sendable () async throws -> Result
) async throws -> Result {
  try await withCheckedThrowingContinuation { continuation in
    let outcome = FirstOutcome(continuation)
    let work = Task {
      do { outcome.resume(with: .success(try await body())) } catch {
        outcome.resume(with: .failure(error))
      }
    }
    Task {
      try? await Task.sleep(for: limit)
      outcome.resume(with: .failure(TimeoutError(limit: limit)))
      work.cancel()
    }
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
