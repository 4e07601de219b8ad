import Foundation
import Synchronization

/// Wakes feed readers early when events were appended. Only a hint: readers also poll.
///
/// No wake-up is lost between a reader's last read and its wait: the reader takes the
/// ``generation`` before reading and waits with it, and a signal given in between ends that
/// wait at once.
public final class WakeUpSignal: Sendable {
  private struct State {
    var generation: UInt64 = 0
    var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
    var nextId: UInt64 = 0
  }

  private let state = Mutex(State())

  public init() {}

  /// Counts the signals so far.
  public var generation: UInt64 { state.withLock { $0.generation } }

  /// Wakes everyone waiting now.
  public func signal() {
    let waiters = state.withLock { state in
      state.generation += 1
      defer { state.waiters.removeAll() }
      return Array(state.waiters.values)
    }
    for waiter in waiters { waiter.resume(returning: true) }
  }

  /// Returns true once a signal after `generation` (now, when none is given) has been
  /// given, false after `timeout` or on cancellation, whichever is first.
  @discardableResult
  public func wait(after generation: UInt64? = nil, timeout: Duration) async -> Bool {
    let id = state.withLock { state in
      defer { state.nextId += 1 }
      return state.nextId
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let signalled = state.withLock { state in
          if let generation, state.generation > generation { return true }
          state.waiters[id] = continuation
          return false
        }
        if signalled {
          continuation.resume(returning: true)
          return
        }
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
