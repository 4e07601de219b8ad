import StoreLedgerCore
import StoreLedgerPostgres

/// Appends to the log for accounts: a verified record indexed under the accounts it names, or
/// what a command decides over an account's state under its stream's lock. Each committed
/// write is told to this process's reads (``WrittenAccounts``).
package struct AccountWriter: Sendable {
  let log: any EventLog
  let calls: StorageCalls
  /// Shares commits between concurrent appends; nil when the configuration turns it off.
  let committer: GroupCommitter?
  let written: WrittenAccounts
  let catalog: ProductCatalog
  let options: ProjectionOptions

  /// Appends `record` and, in the same transaction, indexes its stream (and `alsoIndexing`)
  /// under `accounts`; `companion` (a refund request the record opens) is appended in that
  /// transaction too.
  func append(
    _ record: LedgerRecord, accounts: [String], alsoIndexing extra: [String] = [],
    with companion: BatchAppend? = nil
  ) async throws(LedgerError) -> IngestReceipt {
    let tokens = Array(Set(accounts.filter { !$0.isEmpty }.map(AppAccountToken.normalized)))
      .sorted()
    let streams = Array(Set([record.streamId] + extra)).sorted()
    let (log, committer) = (self.log, self.committer)
    do {
      let index = StreamIndex(keys: tokens, streams: streams)
      let (result, holders) = try await calls.bounded {
        let item = BatchAppend(event: record.event, streamId: record.streamId, index: index)
        if let companion {
          let both = try await log.appendBatch([item, companion])
          return (both[0], both.flatMap(\.holders))
        }
        let result =
          if let committer { try await committer.append(item) } else {
            try await log.append([record.event], to: record.streamId, indexing: index)
          }
        return (result, result.holders)
      }
      // The accounts already holding the stream see the write too, named or not.
      if !result.wasDuplicate { written.changed(Array(Set(tokens + holders)).sorted()) }
      return IngestReceipt(result)
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }

  /// Decides `command` over the account's state under its stream's lock (``LedgerView/decide(_:)``)
  /// and appends what the decision returns, indexed under the account (and `alsoIndexing`), in
  /// one transaction; a refusal appends nothing.
  func decideAndAppend(
    _ command: AccountCommand, for token: String, idempotencyKey: String,
    alsoIndexing extra: [String] = [], source: String = "api", in stream: String? = nil,
    alsoFor others: [String] = []
  ) async throws(LedgerError) -> IngestReceipt {
    let stream = stream ?? "acct:\(token)"
    let index = StreamIndex(
      keys: Array(Set([token] + others)).sorted(), streams: Array(Set([stream] + extra)).sorted())
    let (log, catalog, options) = (self.log, self.catalog, self.options)
    do {
      let result = try await calls.bounded {
        try await log.append(to: stream, indexing: index, decidingOver: token) { events in
          let view = LedgerView(LedgerState.fold(events), catalog: catalog, options: options)
          return try LedgerError.decided(view.decide(command)).map { body in
            try LedgerRecord.command(body, idempotencyKey: idempotencyKey, source: source).event
          }
        }
      }
      if !result.wasDuplicate {
        written.changed(Array(Set([token] + others + result.holders)).sorted())
      }
      return IngestReceipt(result)
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }
}
