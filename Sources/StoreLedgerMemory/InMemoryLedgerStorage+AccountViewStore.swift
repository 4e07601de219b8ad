import Foundation
import StoreLedgerCore
import Synchronization

extension InMemoryLedgerStorage: AccountViewStore {
  public func inputs(of tokens: [String]) async throws(EventStoreError)
    -> [String: AccountInput]
  {
    try state.withLock { state throws(EventStoreError) in
      var inputs: [String: AccountInput] = [:]
      for token in tokens {
        guard let row = state.views[token] else { continue }
        let marker = state.derivations[token]
        // Every append here has committed: nothing older can still come.
        var input = AccountInput(
          changes: row.changes,
          derivation: ChangeDerivationMarker(
            version: marker?.version, events: marker?.events, changes: marker?.changes,
            instant: marker?.instant),
          fence: state.transactions + 1)
        for (stream, join) in (state.joins[token] ?? [:]).sorted(by: { $0.key < $1.key }) {
          for event in Self.recorded(of: [stream], in: state) {
            do {
              input.steps.append(
                try EventCodec.step(
                  eventType: event.eventType, payload: event.payload, stream: stream,
                  recordedAt: Timestamp(event.recordedAt), key: event.idempotencyKey))
            } catch {
              throw EventStoreError(
                .unreadableEvent, "a stored event does not read as its event type says")
            }
            input.places.append(
              AccountInput.Place(
                transaction: event.position.transactionId, sequence: event.position.sequence,
                joined: join.transaction, recordedAt: Timestamp(event.recordedAt),
                joinedAt: Timestamp(join.at)))
          }
        }
        inputs[token] = input
      }
      return inputs
    }
  }

  @discardableResult
  public func store(_ views: [ProjectedAccountView], projection: String)
    async throws(EventStoreError) -> Int
  {
    state.withLock { state in
      var stored = 0
      for view in views {
        guard var row = state.views[view.token], row.projectedChanges <= view.changes else {
          continue
        }
        row.projectedChanges = view.changes
        row.projection = projection
        row.view = view
        state.views[view.token] = row
        if let history = view.history { state.statusHistory[view.token] = history }
        stored += 1
      }
      return stored
    }
  }

  @discardableResult
  public func appendChanges(_ accounts: [DerivedAccountChanges]) async throws(EventStoreError)
    -> Set<String>
  {
    let now = now()
    return state.withLock { state in
      var moved: Set<String> = []
      for account in accounts.sorted(by: { $0.token < $1.token }) {
        if let stored = state.derivations[account.token],
          stored.version != account.expectedVersion
        {
          continue
        }
        state.derivations[account.token] = Derivation(
          version: account.expectedVersion + 1, events: account.events,
          changes: account.firstOrdinal + Int64(account.changes.count),
          instant: account.instant?.milliseconds, due: account.due?.milliseconds)
        moved.insert(account.token)
      }
      let rows = accounts.filter { moved.contains($0.token) }.flatMap { account in
        account.changes.enumerated().map { (account.token, account.firstOrdinal + Int64($0), $1) }
      }.sorted {
        ($0.2.occurredAt.milliseconds, $0.0, $0.1) < ($1.2.occurredAt.milliseconds, $1.0, $1.1)
      }
      for (token, ordinal, derived) in rows {
        let change = derived.change
        state.changeHead += 1
        state.changes.append(
          ChangeRecord(
            position: state.changeHead,
            id: ChangeRecord.id(account: token, ordinal: ordinal), ordinal: ordinal,
            change: AccountChange(
              change.kind, account: token, subject: change.subject,
              old: change.old?.isEmpty == false ? change.old : nil,
              new: change.new?.isEmpty == false ? change.new : nil),
            occurredAt: derived.occurredAt, effectiveAt: derived.effectiveAt,
            cause: derived.cause?.isEmpty == false ? derived.cause : nil, recordedAt: now))
      }
      return moved
    }
  }

  public func expired(at time: Timestamp, limit: Int) async throws(EventStoreError) -> [String] {
    state.withLock { state in
      state.views.compactMap { token, row in
        row.view?.interval.until.flatMap { $0 <= time ? (token, $0) : nil }
      }.sorted { ($0.1.milliseconds, $0.0) < ($1.1.milliseconds, $1.0) }.prefix(limit).map(\.0)
    }
  }

  public func foreign(to projection: String, limit: Int) async throws(EventStoreError)
    -> [String]
  {
    state.withLock { state in
      Array(state.views.filter { $0.value.projection != projection }.keys.sorted().prefix(limit))
    }
  }

  public func changesDue(at time: Timestamp, limit: Int) async throws(EventStoreError)
    -> [String]
  {
    state.withLock { state in
      state.derivations.compactMap { token, marker in
        marker.due.flatMap { $0 <= time.milliseconds ? (token, $0) : nil }
      }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }.prefix(limit).map(\.0)
    }
  }

  public func underived(limit: Int) async throws(EventStoreError) -> [String] {
    state.withLock { state in
      Array(state.views.keys.filter { state.derivations[$0] == nil }.sorted().prefix(limit))
    }
  }

  public func accounts(after token: String, limit: Int, shard: WorkShard)
    async throws(EventStoreError) -> [String]
  {
    state.withLock { state in
      Array(
        state.views.keys.filter { $0 > token && Self.holds(shard, $0) }.sorted().prefix(limit))
    }
  }

  public func storedViews(of tokens: [String]) async throws(EventStoreError)
    -> [String: AccountViewSlice]
  {
    state.withLock { state in
      tokens.reduce(into: [:]) { slices, token in
        if let row = state.views[token] { slices[token] = row.slice }
      }
    }
  }

  public func statusHistories(of tokens: [String]) async throws(EventStoreError)
    -> [String: [StatusTransitionRow]]
  {
    state.withLock { state in
      tokens.reduce(into: [:]) { found, token in
        if let history = state.statusHistory[token], !history.isEmpty { found[token] = history }
      }
    }
  }
}
