import Foundation

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

  private let entries: BoundedCache<Key, VerifiedChain>

  init(capacity: Int) {
    self.entries = BoundedCache(capacity: capacity)
  }

  var capacity: Int { entries.capacity }
  var count: Int { entries.count }

  func chain(for key: Key, at time: Date) -> VerifiedChain? {
    guard let chain = entries[key], chain.isValid(at: time) else { return nil }
    return chain
  }

  func insert(_ chain: VerifiedChain, for key: Key) {
    entries.insert(chain, for: key)
  }
}
