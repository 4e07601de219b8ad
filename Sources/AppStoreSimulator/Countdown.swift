import Synchronization

/// A number of times something is still to happen; shared by every request.
final class Countdown: Sendable {
  private let remaining: Mutex<Int>

  init(_ count: Int) { remaining = Mutex(count) }

  /// Whether any is left.
  var isPending: Bool { remaining.withLock { $0 > 0 } }

  /// Whether one is left, using it up.
  func take() -> Bool {
    remaining.withLock { remaining in
      defer { remaining = max(0, remaining - 1) }
      return remaining > 0
    }
  }
}
