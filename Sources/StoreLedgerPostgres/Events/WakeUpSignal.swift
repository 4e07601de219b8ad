import Foundation
import Synchronization

/// Wakes feed readers early when events were appended. Only a hint: readers also poll.
public final class WakeUpSignal: Sendable {
  private struct State {
    var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
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
    for waiter in waiters { waiter.resume() }
  }

  /// Returns at the next `signal()`, after `timeout`, or on cancellation, whichever is first.
  public func wait(timeout: Duration) async {
    let id = state.withLock { state in
      defer { state.nextId += 1 }
      return state.nextId
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        state.withLock { $0.waiters[id] = continuation }
        Task { [weak self] in
          try? await Task.sleep(for: timeout)
          self?.resume(id)
        }
      }
    } onCancel: {
      resume(id)
    }
  }

  private func resume(_ id: UInt64) {
    state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
  }
}
