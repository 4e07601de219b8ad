import AppStoreVerification
import Foundation
import Logging
import StoreLedgerCore
import Synchronization

/// The sightings this process has handled, so that a customer's renewals cost nothing after
/// the first, and those waiting to be written in the next batch.
final class IdentityCache: Sendable {
  private struct State {
    var seen: Set<String> = []
    var pending: [String: DownloadSighting] = [:]
    var flushing = false
    /// Batches taken to be written and not yet reported written.
    var inFlight: [[DownloadSighting]] = []
  }
  private let state = Mutex(State())
  private let capacity: Int

  init(capacity: Int) { self.capacity = capacity }

  func contains(_ key: String) -> Bool { state.withLock { $0.seen.contains(key) } }

  func insert(_ key: String) {
    state.withLock {
      if $0.seen.count >= capacity { $0.seen.removeAll(keepingCapacity: true) }
      $0.seen.insert(key)
    }
  }

  /// Queues a sighting; true when the caller should start a flush (none is running).
  func enqueue(_ sighting: DownloadSighting) -> Bool {
    state.withLock {
      $0.pending[sighting.key] = sighting
      guard !$0.flushing else { return false }
      $0.flushing = true
      return true
    }
  }

  /// The queued sightings (at most 1,000), or nil when none is left; `endingFlush`: the
  /// background flush ends then, so that the next sighting starts another.
  func takeBatch(endingFlush: Bool) -> [DownloadSighting]? {
    state.withLock {
      guard !$0.pending.isEmpty else {
        if endingFlush { $0.flushing = false }
        return nil
      }
      let batch = Array($0.pending.values.prefix(1000))
      for sighting in batch { $0.pending[sighting.key] = nil }
      $0.inFlight.append(batch)
      return batch
    }
  }

  func written(_ batch: [DownloadSighting]) {
    let keys = batch.map(\.key)
    state.withLock { state in
      if let index = state.inFlight.firstIndex(where: { $0.map(\.key) == keys }) {
        state.inFlight.remove(at: index)
      }
    }
  }

  /// A batch is being written, or sightings wait for one.
  var isWriting: Bool { state.withLock { !$0.inFlight.isEmpty || !$0.pending.isEmpty } }

  /// Tokens of the sightings of one download that are queued or being written: not in the
  /// index yet, or not known to be.
  func pendingTokens(_ environment: String, _ appTransactionId: String) -> Set<String> {
    waitingTokens()[Self.download(environment, appTransactionId)] ?? []
  }

  /// The same for every download, by ``download(_:_:)``.
  func waitingTokens() -> [String: Set<String>] {
    state.withLock { state in
      var tokens: [String: Set<String>] = [:]
      for sighting in Array(state.pending.values) + state.inFlight.joined() {
        guard let token = sighting.token else { continue }
        tokens[Self.download(sighting.environment, sighting.appTransactionId), default: []]
          .insert(token)
      }
      return tokens
    }
  }

  /// One app download's key: its environment and appTransactionId.
  static func download(_ environment: String, _ appTransactionId: String) -> String {
    "\(environment)|\(appTransactionId)"
  }
}
