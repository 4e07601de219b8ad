import Foundation
import StoreLedgerCore
import StoreLedgerPostgres

/// Gathers single-event appends that arrive together into shared transactions (group
/// commit): at most `maximumInFlight` batches run at once, and whatever arrives meanwhile
/// waits for the next one, so a lone append goes out at once and a burst of them shares one
/// commit. Every caller is answered after its batch has committed.
///
/// The batches run in the callers' own tasks, never in tasks of the committer's: a caller that
/// finds a batch free leads one (its own item and what is waiting); a leader that finishes
/// while items wait hands the next batch to the first of their callers.
actor GroupCommitter {
  /// What a waiting caller is told: its item's outcome, or that it leads the next batch.
  private enum Turn: Sendable {
    case answered(AppendResult)
    case lead
  }
  private typealias Waiter = CheckedContinuation<Turn, any Error>
  private typealias Entry = (item: BatchAppend, waiter: Waiter?)

  let log: any EventLog
  let maximumBatch: Int
  let maximumInFlight: Int
  /// A batch that has not committed by then fails (its callers have stopped waiting anyway),
  /// so one stuck on an unreachable database does not hold up the next.
  let timeout: Duration
  private var pending: [(item: BatchAppend, waiter: Waiter)] = []
  private var inFlight = 0

  init(
    log: any EventLog, maximumBatch: Int = 64, maximumInFlight: Int = 2,
    timeout: Duration = .seconds(10)
  ) {
    self.log = log
    self.timeout = timeout
    self.maximumBatch = max(1, maximumBatch)
    self.maximumInFlight = max(1, maximumInFlight)
  }

  func append(_ item: BatchAppend) async throws -> AppendResult {
    guard inFlight >= maximumInFlight else {
      inFlight += 1
      return try await lead(item)
    }
    let turn = try await withCheckedThrowingContinuation { waiter in
      pending.append((item, waiter))
    }
    switch turn {
    case .answered(let result): return result
    // The leader before kept the batch counted in flight for this caller.
    case .lead: return try await lead(item)
    }
  }

  /// Commits `item` with what waits (up to a batch), answers the others, hands the next
  /// batch on, and returns `item`'s outcome. The caller has counted the batch in flight.
  private func lead(_ item: BatchAppend) async throws -> AppendResult {
    let others = Array(pending.prefix(maximumBatch - 1))
    pending.removeFirst(others.count)
    let batch: [Entry] = [(item, nil)] + others.map { ($0.item, $0.waiter) }
    let (items, log, timeout) = (batch.map(\.item), self.log, self.timeout)
    let outcomes: [Result<AppendResult, any Error>]
    do {
      outcomes = try await withTimeout(timeout) { await Self.commit(items, log: log) }
    } catch {
      outcomes = items.map { _ in .failure(error) }
    }
    for (entry, outcome) in zip(batch.dropFirst(), outcomes.dropFirst()) {
      entry.waiter?.resume(with: outcome.map(Turn.answered))
    }
    // The batch slot passes to the first waiting caller, or is freed.
    if pending.isEmpty {
      inFlight -= 1
    } else {
      pending.removeFirst().waiter.resume(returning: .lead)
    }
    return try outcomes[0].get()
  }

  /// One transaction for the batch. When the database refuses it (a faulty item), each half
  /// is committed again on its own, down to single items, so only the faulty one fails and the
  /// others still share commits; when the database is away, every item fails with that.
  private static func commit(_ items: [BatchAppend], log: any EventLog) async
    -> [Result<AppendResult, any Error>]
  {
    if items.count == 1 { return [await single(items[0], log: log)] }
    do {
      return try await log.appendBatch(items).map { .success($0) }
    } catch  where error.code == .databaseUnavailable {
      return items.map { _ in .failure(error) }
    } catch {
      let middle = items.count / 2
      async let first = commit(Array(items[..<middle]), log: log)
      async let second = commit(Array(items[middle...]), log: log)
      return await first + second
    }
  }

  private static func single(_ item: BatchAppend, log: any EventLog) async
    -> Result<AppendResult, any Error>
  {
    do {
      return .success(try await log.append([item.event], to: item.streamId, indexing: item.index))
    } catch {
      return .failure(error)
    }
  }
}
