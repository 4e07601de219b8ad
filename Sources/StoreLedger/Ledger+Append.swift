import AppStoreVerification
import Foundation
import StoreLedgerCore
import StoreLedgerPostgres

extension Ledger {
  /// Appends `record` and, in the same transaction, indexes its stream (and `alsoIndexing`)
  /// under `accounts`; `companion` (a refund request the record opens) is appended in that
  /// transaction too.
  func append(
    _ record: LedgerRecord, accounts: [String], alsoIndexing extra: [String] = [],
    with companion: BatchAppend? = nil
  ) async throws(LedgerError) -> Ingested {
    let tokens = Array(Set(accounts.filter { !$0.isEmpty }.map(AppAccountToken.normalized)))
      .sorted()
    let streams = Array(Set([record.streamId] + extra)).sorted()
    let (log, committer) = (storage.log, self.committer)
    do {
      let index = StreamIndex(keys: tokens, streams: streams)
      let (result, holders) = try await storage.bounded {
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
      if !result.wasDuplicate { changed(Array(Set(tokens + holders)).sorted()) }
      return Ingested(result)
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
  ) async throws(LedgerError) -> Ingested {
    let stream = stream ?? "acct:\(token)"
    let index = StreamIndex(
      keys: Array(Set([token] + others)).sorted(), streams: Array(Set([stream] + extra)).sorted())
    let (log, catalog, options) = (storage.log, configuration.catalog, configuration.options)
    do {
      let result = try await storage.bounded {
        try await log.append(to: stream, indexing: index, decidingOver: token) { events in
          let view = LedgerView(LedgerState.fold(events), catalog: catalog, options: options)
          return try LedgerError.decided(view.decide(command)).map { body in
            try LedgerRecord.command(body, idempotencyKey: idempotencyKey, source: source).event
          }
        }
      }
      if !result.wasDuplicate { changed(Array(Set([token] + others + result.holders)).sorted()) }
      return Ingested(result)
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }

  /// The canonical (lower-case) form of a token the caller supplies; refused with
  /// `invalid_request` when it is not a UUID, before anything is read or written.
  static func canonical(_ appAccountToken: String) throws(LedgerError) -> String {
    guard let token = AppAccountToken.canonical(appAccountToken) else {
      throw LedgerError(
        .invalidRequest,
        "an appAccountToken is a UUID, such as \(AppAccountToken.example) (any case)")
    }
    return token
  }

  /// A write to `tokens` committed: reads of them in this process must see it. The replicas
  /// note it before the cache lets go of the old views, so no read that begins after this can
  /// be answered from before the write.
  func changed(_ tokens: [String]) {
    storage.replicas?.noteWrite(to: tokens)
    views.viewCache?.invalidate(tokens)
  }
}

extension Ledger.Ingested {
  /// The first (usually only) event of an append.
  init(_ result: AppendResult) {
    let stored = result.events[0]
    self.init(
      streamId: result.streamId, idempotencyKey: stored.idempotencyKey,
      streamVersion: stored.streamVersion, wasDuplicate: result.wasDuplicate)
  }
}
