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

  /// How many readers are waiting now (a reader that waits has read everything before it).
  public var waiting: Int { state.withLock { $0.waiters.count } }

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
    // The timer is a child task, so no work outlives the wait.
    await withTaskGroup(of: Bool.self) { group in
      group.addTask { await self.signalled(after: generation) }
      group.addTask {
        try? await Task.sleep(for: timeout)
        return false
      }
      let first = await group.next() ?? false
      group.cancelAll()
      return first
    }
  }

  /// Returns true at a signal after `generation`, false when the task is cancelled.
  private func signalled(after generation: UInt64?) async -> Bool {
    let id = state.withLock { state in
      defer { state.nextId += 1 }
      return state.nextId
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let answer: Bool? = state.withLock { state in
          if let generation, state.generation > generation { return true }
          // A cancellation before this point found no waiter to resume.
          if Task.isCancelled { return false }
          state.waiters[id] = continuation
          return nil
        }
        if let answer { continuation.resume(returning: answer) }
      }
    } onCancel: {
      state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: false)
    }
  }
}
