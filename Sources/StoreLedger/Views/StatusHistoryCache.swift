import StoreLedgerCore
import Synchronization

/// The status history derivations the projector made last, by account: when an account's new
/// events happened after all it had, the projector continues its derivation with them instead
/// of deriving the account's whole log again (``StatusHistoryDerivation``). A memo, bounded:
/// any entry may go, and one whose events are no longer the account's first is not used. The
/// rebuild and the audit always derive whole, so a history continued wrongly would be found.
final class StatusHistoryCache: Sendable {
  struct Entry: Sendable {
    let derivation: StatusHistoryDerivation
    /// The key of the last event of the account's log when it was kept.
    let lastKey: String
  }

  /// Accounts kept: those a burst of notifications touches (each entry holds the account's
  /// folded state, a few kilobytes for a subscription's years).
  static let accounts = 10_000

  private let capacity: Int
  private let entries = Mutex<[String: Entry]>([:])
  /// Refreshes that continued a kept derivation, and those that derived whole.
  private let tally = Mutex((continued: 0, whole: 0))
  var counts: (continued: Int, whole: Int) { tally.withLock { $0 } }

  init(capacity: Int) {
    self.capacity = capacity
  }

  /// The derivation kept for `token` when `events` begin with the events it took (by count
  /// and last key) and what follows can continue it.
  func derivation(of token: String, continuing events: [LedgerEvent]) -> StatusHistoryDerivation? {
    let entry = entries.withLock { $0[token] }
    let taken = entry?.derivation.taken ?? 0
    guard let entry, taken > 0, taken <= events.count, events[taken - 1].key == entry.lastKey,
      entry.derivation.canContinue(with: events[taken...])
    else {
      tally.withLock { $0.whole += 1 }
      return nil
    }
    tally.withLock { $0.continued += 1 }
    return entry.derivation
  }

  func keep(_ derivation: StatusHistoryDerivation, of token: String, lastKey: String?) {
    entries.withLock { entries in
      guard let lastKey, derivation.continuable else {
        entries[token] = nil
        return
      }
      if entries[token] == nil, entries.count >= capacity, let any = entries.keys.first {
        entries[any] = nil
      }
      entries[token] = Entry(derivation: derivation, lastKey: lastKey)
    }
  }

  func forget(_ token: String) {
    _ = entries.withLock { $0.removeValue(forKey: token) }
  }
}
