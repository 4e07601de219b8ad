import Foundation
import StoreLedgerPostgres

/// Gathers single-event appends that arrive together into shared transactions (group
/// commit): at most `maximumInFlight` batches run at once, and whatever arrives meanwhile
/// waits for the next one, so a lone append goes out at once and a burst of them shares one
/// commit. Every caller is answered after its batch has committed.
actor GroupCommitter {
  typealias Waiter = CheckedContinuation<AppendResult, any Error>

  let store: EventStore
  let maximumBatch: Int
  let maximumInFlight: Int
  /// A batch that has not committed by then fails (its callers have stopped waiting anyway),
  /// so one stuck on an unreachable database does not hold up the next.
  let timeout: Duration
  private var pending: [(item: BatchAppend, waiter: Waiter)] = []
  private var inFlight = 0

  init(
    store: EventStore, maximumBatch: Int = 64, maximumInFlight: Int = 2,
    timeout: Duration = .seconds(10)
  ) {
    self.store = store
    self.timeout = timeout
    self.maximumBatch = max(1, maximumBatch)
    self.maximumInFlight = max(1, maximumInFlight)
  }

  func append(_ item: BatchAppend) async throws -> AppendResult {
    try await withCheckedThrowingContinuation { waiter in
      pending.append((item, waiter))
      startBatches()
    }
  }

  private func startBatches() {
    while inFlight < maximumInFlight, !pending.isEmpty {
      let batch = Array(pending.prefix(maximumBatch))
      pending.removeFirst(batch.count)
      inFlight += 1
      Task { await self.run(batch) }
    }
  }

  private func run(_ batch: [(item: BatchAppend, waiter: Waiter)]) async {
    let (items, store) = (batch.map(\.item), self.store)
    let outcomes: [Result<AppendResult, any Error>]
    do {
      outcomes = try await withTimeout(timeout) { await Self.commit(items, store: store) }
    } catch {
      outcomes = items.map { _ in .failure(error) }
    }
    for (entry, outcome) in zip(batch, outcomes) { entry.waiter.resume(with: outcome) }
    inFlight -= 1
    startBatches()
  }

  /// One transaction for the batch. When the database refuses it (a faulty item), each half
  /// is committed again on its own, down to single items, so only the faulty one fails and the
  /// others still share commits; when the database is away, every item fails with that.
  private static func commit(_ items: [BatchAppend], store: EventStore) async
    -> [Result<AppendResult, any Error>]
  {
    if items.count == 1 { return [await single(items[0], store: store)] }
    do {
      return try await store.appendBatch(items).map { .success($0) }
    } catch  where error.code == .databaseUnavailable {
      return items.map { _ in .failure(error) }
    } catch {
      let middle = items.count / 2
      async let first = commit(Array(items[..<middle]), store: store)
      async let second = commit(Array(items[middle...]), store: store)
      return await first + second
    }
  }

  private static func single(_ item: BatchAppend, store: EventStore) async
    -> Result<AppendResult, any Error>
  {
    do {
      return .success(try await store.append([item.event], to: item.streamId, indexing: item.index))
    } catch {
      return .failure(error)
    }
  }
}
