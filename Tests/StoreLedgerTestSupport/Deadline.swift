import Foundation
import Synchronization

/// Thrown by ``withDeadline(_:_:)`` when the work did not finish in time.
public struct DeadlineExceeded: Error, CustomStringConvertible {
  public let limit: Duration
  public var description: String { "did not finish within \(limit)" }
}

/// Runs `body` and returns its result, or throws ``DeadlineExceeded`` after `limit` even when
/// `body` never finishes and ignores cancellation (it is then left running): a hang becomes
/// a test failure instead of stalling the suite.
public func withDeadline<Result: Sendable>(
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
      outcome.resume(with: .failure(DeadlineExceeded(limit: limit)))
      work.cancel()
    }
  }
}

private final class FirstOutcome<Value: Sendable>: Sendable {
  private let continuation: Mutex<CheckedContinuation<Value, any Error>?>

  init(_ continuation: CheckedContinuation<Value, any Error>) {
    self.continuation = Mutex(continuation)
  }

  func resume(with result: Swift.Result<Value, any Error>) {
    continuation.withLock { $0.take() }?.resume(with: result)
  }
}
