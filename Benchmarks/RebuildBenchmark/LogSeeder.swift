import Foundation
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport

/// Fills the log with generated lifecycles through the engine's batch append (hash chain,
/// account index and view counters as in production), customer by customer, each event in
/// the stream and under the accounts the ledger would use. `raw_signed` is left empty: the
/// rebuild never reads it (it is TOASTed out of line), and signatures are measured apart.
struct LogSeeder {
  let store: EventStore
  let concurrency = 4
  let batchSize = 500

  /// Appends at least `count` events; returns how many and of how many customers.
  func seed(count: Int, progress: (Int) -> Void) async throws -> (events: Int, customers: Int) {
    var generator = SyntheticLifecycles(seed: 2026)
    var (customer, appended, sequence) = (0, 0, 0)
    var pending: [BatchAppend] = []
    let encoder = JSONEncoder()
    try await withThrowingTaskGroup(of: Int.self) { group in
      var running = 0
      func flush() async throws {
        guard !pending.isEmpty else { return }
        if running == concurrency, let done = try await group.next() {
          (appended, running) = (appended + done, running - 1)
          progress(appended)
        }
        let batch = pending
        pending = []
        group.addTask { try await store.appendBatch(batch).count }
        running += 1
      }
      while appended + running * batchSize + pending.count < count {
        let start = generator.events.count
        generator.addCustomer(customer)
        customer += 1
        for event in generator.events[start...] {
          sequence += 1
          pending.append(try Self.item(event, sequence: sequence, encoder: encoder))
          if pending.count == batchSize { try await flush() }
        }
      }
      try await flush()
      for try await done in group { appended += done }
    }
    return (appended, customer)
  }

  static func item(_ event: LedgerEvent, sequence: Int, encoder: JSONEncoder) throws
    -> BatchAppend
  {
    let (stream, tokens, extra) = placement(of: event)
    var indexed = [stream]
    if let extra { indexed.append(extra) }
    return BatchAppend(
      event: NewEvent(
        eventType: event.eventType, idempotencyKey: "bench:\(sequence)",
        payload: EventCodec.payload(of: event.body), environment: "Production",
        appleSignedAt: event.effectiveDate?.date),
      streamId: stream, index: tokens.isEmpty ? nil : StreamIndex(keys: tokens, streams: indexed))
  }

  /// The stream the ledger keeps the event in, the accounts it names, and a chain a link
  /// also indexes.
  static func placement(of event: LedgerEvent) -> (String, [String], String?) {
    func chain(_ id: String?) -> String { "sub:Production:\(id ?? "unknown")" }
    switch event.body {
    case .notification(let facts):
      let original =
        facts.transaction?.originalTransactionId ?? facts.renewal?.originalTransactionId
      return (chain(original), [facts.transaction?.appAccountToken].compactMap { $0 }, nil)
    case .transaction(let seen):
      let tokens = [seen.transaction.appAccountToken, seen.forwardedToken]
      return (chain(seen.transaction.originalTransactionId), tokens.compactMap { $0 }, nil)
    case .renewal(let facts):
      return (chain(facts.originalTransactionId), [], nil)
    case .status(let observed):
      return (chain(observed.originalTransactionId), [], nil)
    case .debit(let debit):
      return ("acct:\(debit.appAccountToken)", [debit.appAccountToken], nil)
    case .grant(let grant):
      return ("acct:\(grant.appAccountToken)", [grant.appAccountToken], nil)
    case .link(let link):
      return (
        "acct:\(link.appAccountToken)", [link.appAccountToken], chain(link.originalTransactionId)
      )
    case .seat(let seat):
      return (
        "seats:Production:\(seat.originalTransactionId)",
        [seat.appAccountToken].compactMap { $0 }, chain(seat.originalTransactionId)
      )
    }
  }
}
