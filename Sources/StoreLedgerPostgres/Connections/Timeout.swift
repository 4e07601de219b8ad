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
    // The timer is stopped when the work ends: under load, timers left sleeping for the whole
    // limit pile up by the thousand.
    let timer = Mutex<Task<Void, Never>?>(nil)
    let work = Task {
      let result: Swift.Result<Result, any Error>
      do { result = .success(try await body()) } catch { result = .failure(error) }
      timer.withLock { $0?.cancel() }
      outcome.resume(with: result)
    }
    timer.withLock { stored in
      stored = Task {
        do { try await Task.sleep(for: limit) } catch { return }
        outcome.resume(with: .failure(TimeoutError(limit: limit)))
        work.cancel()
      }
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
