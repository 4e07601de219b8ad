import Synchronization

/// Thrown by ``withTimeout(_:_:)`` when the work did not finish in time.
public struct TimeoutError: Error, CustomStringConvertible {
  public let limit: Duration
  public var description: String { "no answer within \(limit)" }
}

/// Runs `body` and returns its result, or throws ``TimeoutError`` after `limit`, cancelling
/// `body`: PostgresNIO's pool keeps trying to connect to a server that is down until its lease
/// is cancelled, and callers that must answer (a webhook that should say 503 so Apple retries)
/// put a limit on it with this.
public func withTimeout<Result: Sendable>(
  _ limit: Duration, _ body: @escaping @Sendable () async throws -> Result
) async throws -> Result {
  try await withThrowingTaskGroup(of: Result?.self) { group in
    group.addTask { try await body() }
    group.addTask {
      try await Task.sleep(for: limit)
      return nil
    }
    defer { group.cancelAll() }
    guard let first = try await group.next(), let result = first else {
      throw TimeoutError(limit: limit)
    }
    return result
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
