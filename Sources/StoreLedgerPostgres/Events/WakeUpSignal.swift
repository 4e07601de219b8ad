import Foundation
import Synchronization

/// Wakes feed readers early when events were appended. Only a hint: readers also poll.
public final class WakeUpSignal: Sendable {
  private struct State {
    var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
    var nextId: UInt64 = 0
  }

  private let state = Mutex(State())

  public init() {}

  /// Wakes everyone waiting now.
  public func signal() {
    let waiters = state.withLock { state in
      defer { state.waiters.removeAll() }
      return Array(state.waiters.values)
    }
    for waiter in waiters { waiter.resume(returning: true) }
  }

  /// Returns at the next `signal()` (true), after `timeout` or on cancellation (false),
  /// whichever is first.
  @discardableResult
  public func wait(timeout: Duration) async -> Bool {
    let id = state.withLock { state in
      defer { state.nextId += 1 }
      return state.nextId
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        state.withLock { $0.waiters[id] = continuation }
        Task { [weak self] in
          try? await Task.sleep(for: timeout)
          self?.resume(id, signalled: false)
        }
      }
    } onCancel: {
      resume(id, signalled: false)
    }
  }

  private func resume(_ id: UInt64, signalled: Bool) {
    state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: signalled)
  }
}
