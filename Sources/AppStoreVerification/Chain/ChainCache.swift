import Foundation
import Synchronization

/// Chains already validated, keyed by the exact leaf and intermediate bytes.
///
/// A hit only counts when the validation time lies inside the chain's validity window, so
/// a cached chain never vouches for a time it was not checked for. Bounded: the oldest
/// entry is dropped when full.
final class ChainCache: Sendable {
  struct Key: Hashable, Sendable {
    let leaf: [UInt8]
    let intermediate: [UInt8]

    /// Hashes the lengths and the trailing bytes, which hold each certificate's own signature
    /// and so differ between any two certificates; equality still compares every byte.
    func hash(into hasher: inout Hasher) {
      hasher.combine(leaf.count)
      hasher.combine(intermediate.count)
      leaf.suffix(32).withUnsafeBytes { hasher.combine(bytes: $0) }
      intermediate.suffix(32).withUnsafeBytes { hasher.combine(bytes: $0) }
    }
  }

  private struct State {
    var entries: [Key: VerifiedChain] = [:]
    var insertionOrder: [Key] = []
  }

  let capacity: Int
  private let state = Mutex(State())

  init(capacity: Int) {
    self.capacity = max(1, capacity)
  }

  func chain(for key: Key, at time: Date) -> VerifiedChain? {
    guard let chain = state.withLock({ $0.entries[key] }), chain.isValid(at: time) else {
      return nil
    }
    return chain
  }

  func insert(_ chain: VerifiedChain, for key: Key) {
    state.withLock { state in
      if state.entries.updateValue(chain, forKey: key) != nil { return }
      state.insertionOrder.append(key)
      if state.insertionOrder.count > capacity {
        state.entries[state.insertionOrder.removeFirst()] = nil
      }
    }
  }

  var count: Int { state.withLock { $0.entries.count } }
}
