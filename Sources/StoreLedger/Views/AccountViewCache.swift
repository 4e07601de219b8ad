import NIOCore
import StoreLedgerCore
import Synchronization

/// The current views of recently projected accounts, in this process: an account query it can
/// answer costs a lock and a lookup instead of a round trip.
///
/// Kept fresh from the feed: only while an ``AccountProjector`` runs in this process (it puts
/// every view it projects here, and notes how far behind the feed it is) does the cache answer
/// at all, and only while that lag stays under ``maximumLag``. This process's own ingests take
/// the accounts they name out at once (read-your-writes); a view read or projected before such
/// an ingest is never put back in. Ingests by other processes reach it through the feed, so
/// for them an answer may be as old as the projector's lag. Bounded: past `capacity` accounts,
/// the earliest inserted are evicted down to nine tenths of it.
final class AccountViewCache: Sendable {
  /// One account's view: its summary (for the library's queries) and each part's JSON (for the
  /// HTTP API), for the times `interval` covers.
  struct Entry: Sendable {
    var summary: AccountSummary
    var parts: [ByteBuffer]
    var interval: StableInterval

    init(_ summary: AccountSummary, interval: StableInterval) {
      self.summary = summary
      self.parts = AccountViewSlice.Part.allCases.map { ByteBuffer(bytes: summary.json(of: $0)) }
      self.interval = interval
    }

    func json(of part: AccountViewSlice.Part) -> ByteBuffer {
      parts[AccountViewSlice.Part.allCases.firstIndex(of: part)!]
    }
  }

  private enum Slot {
    /// A view read (or projected from a read) that began at this epoch.
    case view(Entry, readAt: UInt64)
    /// Taken out by a local ingest at this epoch: views read before it are not put back.
    case invalidated(UInt64)

    var epoch: UInt64 {
      switch self {
      case .view(_, let epoch), .invalidated(let epoch): epoch
      }
    }
  }

  private struct State {
    var slots: [String: Slot] = [:]
    /// Insertion order, for eviction; may hold tokens already removed or reinserted.
    var order: [String] = []
    var epoch: UInt64 = 0
    var isFollowingFeed = false
    var lagSeconds = 0.0
  }

  static let maximumLag = 1.0
  let capacity: Int
  private let state = Mutex(State())

  init(capacity: Int) {
    self.capacity = capacity
  }

  /// Accounts held (views and marks of local ingests).
  var count: Int { state.withLock { $0.slots.count } }

  /// A read of views begins: pass what this returns to ``store(_:readAt:)`` with what it read.
  /// A view never replaces one read after it, nor comes back after a later local ingest.
  func readBegins() -> UInt64 {
    state.withLock { state in
      state.epoch += 1
      return state.epoch
    }
  }

  /// The view of `token` if the cache may answer for `time`.
  func entry(for token: String, at time: Timestamp) -> Entry? {
    state.withLock { state in
      guard state.isFollowingFeed, state.lagSeconds < Self.maximumLag,
        case .view(let entry, _)? = state.slots[token], entry.interval.contains(time)
      else { return nil }
      return entry
    }
  }

  /// A local ingest named these accounts: their views are out of date.
  func invalidate(_ tokens: some Sequence<String>) {
    state.withLock { state in
      state.epoch += 1
      for token in tokens
      where state.slots.updateValue(.invalidated(state.epoch), forKey: token) == nil {
        state.order.append(token)
      }
      evictIfFull(&state)
    }
  }

  /// Views read (or projected from reads) that began at `epoch`; one whose account a local
  /// ingest has named since, or whose view was read again since, is left out.
  func store(_ entries: [(token: String, entry: Entry)], readAt epoch: UInt64) {
    guard !entries.isEmpty else { return }
    state.withLock { state in
      for (token, entry) in entries {
        if let slot = state.slots[token], slot.epoch > epoch { continue }
        if state.slots.updateValue(.view(entry, readAt: epoch), forKey: token) == nil {
          state.order.append(token)
        }
      }
      evictIfFull(&state)
    }
  }

  /// The projector of this process follows the feed (or stopped), `lagSeconds` behind.
  func noteFeed(following: Bool, lagSeconds: Double = 0) {
    state.withLock { state in
      state.isFollowingFeed = following
      state.lagSeconds = lagSeconds
      if !following { state.slots.removeAll() }
    }
  }

  private func evictIfFull(_ state: inout State) {
    guard state.slots.count > capacity else { return }
    let target = capacity - capacity / 10
    var evicted = 0
    while state.slots.count > target, evicted < state.order.count {
      state.slots.removeValue(forKey: state.order[evicted])
      evicted += 1
    }
    state.order = state.order[evicted...].filter { state.slots[$0] != nil }
  }
}
