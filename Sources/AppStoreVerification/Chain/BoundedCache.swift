import Synchronization

/// A small thread-safe map that drops its oldest entry when full.
final class BoundedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
  private struct State {
    var entries: [Key: Value] = [:]
    var insertionOrder: [Key] = []
  }

  let capacity: Int
  private let state = Mutex(State())

  init(capacity: Int) {
    self.capacity = max(1, capacity)
  }

  subscript(key: Key) -> Value? {
    state.withLock { $0.entries[key] }
  }

  func insert(_ value: Value, for key: Key) {
    state.withLock { state in
      if state.entries.updateValue(value, forKey: key) != nil { return }
      state.insertionOrder.append(key)
      if state.insertionOrder.count > capacity {
        state.entries[state.insertionOrder.removeFirst()] = nil
      }
    }
  }

  var count: Int { state.withLock { $0.entries.count } }
}
