import Crypto
import Foundation
import StoreLedgerCore
import Synchronization

/// The ledger's storage in memory: every port with the promises the PostgreSQL ones keep (the
/// storage conformance suites run against both), for an embedder's tests and ours whose point
/// is not storage: `Ledger(storage: InMemoryLedgerStorage(), configuration:logger:)`. Its
/// account queries fold the log (the projector's views serve the audit, the console and the
/// change feed); it has no replicas and forgets everything with the process.
public final class InMemoryLedgerStorage: EventLog, AccountReads, AccountIndex, Sendable {
  struct State {
    /// Every event, in feed order.
    var events: [RecordedEvent] = []
    var positionOfKey: [String: Int] = [:]
    var eventsOfStream: [String: [Int]] = [:]
    var streamsOfAccount: [String: Set<String>] = [:]
    var accountsOfStream: [String: Set<String>] = [:]
    /// By environment, appTransactionId and chain.
    var downloads: [String: DownloadSighting] = [:]
    var transactions: UInt64 = 0
    /// The live views' rows, by account: one for every account an append named.
    var views: [String: ViewRow] = [:]
    /// When each of an account's streams joined it, by account and stream.
    var joins: [String: [String: Join]] = [:]
    var derivations: [String: Derivation] = [:]
    /// Each account's status history (``StatusHistory``), as its view was last stored.
    var statusHistory: [String: [StatusTransitionRow]] = [:]
    /// The change feed, in position order; an erasure leaves gaps.
    var changes: [ChangeRecord] = []
    /// The newest position the feed gave, erased or not.
    var changeHead: Int64 = 0
    var endpoints: [String: Endpoint] = [:]
    /// By endpoint and position.
    var deliveries: [String: [Int64: Delivery]] = [:]
    var checkpoints: [String: FeedPosition] = [:]
    /// Revenue rows by chain.
    var revenue: [String: ChainRevenue] = [:]
    var apiKeys: [APIKeyRecord] = []
    /// Versions of the views table: the live one is ``views``; the others keep their rows.
    var versions: [Int: AccountViewsVersion] = [:]
    var versionRows: [Int: [String: ViewRow]] = [:]
    var relayTargets: [String: RelayTargetState] = [:]
    /// By target and notification key.
    var relayRows: [String: [String: RelayRow]] = [:]
    /// Each account's alias, and each alias's account.
    var aliases: [String: String] = [:]
    var aliasHolders: [String: String] = [:]
    /// Signed-out sessions' digests, with when each session would have expired.
    var signOuts: [String: Date] = [:]
    /// What erasures erased, by keyed hash (HMAC-SHA256 of `kind:id` under ``erasureKey``).
    var erased: [Data: ErasedIdentifier] = [:]
    /// The register's key: random, never leaves the process.
    let erasureKey = SymmetricKey(size: .bits256)

    /// The changes after `position`, in position order.
    func changes(after position: Int64) -> ArraySlice<ChangeRecord> {
      var low = 0
      var high = changes.count
      while low < high {
        let middle = (low + high) / 2
        if changes[middle].position <= position { low = middle + 1 } else { high = middle }
      }
      return changes[low...]
    }

    func change(at position: Int64) -> ChangeRecord? {
      changes(after: position - 1).first.flatMap { $0.position == position ? $0 : nil }
    }
  }

  let state = Mutex(State())
  let now: @Sendable () -> Date

  /// - Parameter now: the clock that stamps `recordedAt`.
  public init(now: @escaping @Sendable () -> Date = { Date() }) {
    self.now = now
    let created = now()
    state.withLock {
      $0.versions[1] = AccountViewsVersion(
        version: 1, state: "live", projection: nil, accounts: nil, createdAt: created,
        switchedAt: created, retiredAt: nil)
    }
  }

  /// How many events the log holds.
  public var eventCount: Int { state.withLock { $0.events.count } }

  // MARK: EventLog

  public func append(_ events: [NewEvent], to stream: String, indexing index: StreamIndex?)
    async throws(EventStoreError) -> AppendResult
  {
    let now = now()
    return try state.withLock { state throws(EventStoreError) in
      try Self.validate(events, stream: stream)
      try Self.checkKeys(events.map { ($0.idempotencyKey, stream) }, in: state)
      return Self.write(events, to: stream, index: index, at: now, in: &state)
    }
  }

  public func appendBatch(_ items: [BatchAppend]) async throws(EventStoreError) -> [AppendResult] {
    let now = now()
    return try state.withLock { state throws(EventStoreError) in
      guard items.count <= BatchAppend.maximumCount else {
        throw EventStoreError(
          .invalidEvent, "a batch holds at most \(BatchAppend.maximumCount) events")
      }
      for item in items { try Self.validate([item.event], stream: item.streamId) }
      // A key given twice in one batch must name one stream, as a key already stored must.
      var streamOfKey: [String: String] = [:]
      for item in items {
        let key = item.event.idempotencyKey
        if let other = streamOfKey[key], other != item.streamId {
          throw Self.keyInOtherStream
        }
        streamOfKey[key] = item.streamId
      }
      try Self.checkKeys(items.map { ($0.event.idempotencyKey, $0.streamId) }, in: state)
      state.transactions += 1
      return items.map { item in
        Self.write(
          [item.event], to: item.streamId, index: item.index, at: now, in: &state,
          sameTransaction: true)
      }
    }
  }

  public func append(
    to stream: String, indexing index: StreamIndex?, decidingOver account: String,
    _ decide: @escaping @Sendable ([LedgerEvent]) throws -> [NewEvent]
  ) async throws(EventStoreError) -> AppendResult {
    let now = now()
    return try state.withLock { state throws(EventStoreError) in
      let events: [NewEvent]
      do {
        events = try decide(try Self.ledgerEvents(of: account, environment: nil, in: state))
      } catch let error as EventStoreError where error.code == .unreadableEvent {
        throw error
      } catch {
        throw EventStoreError(
          .hookFailed, "the decision refused the command; nothing was appended",
          underlying: error)
      }
      try Self.validate(events, stream: stream)
      try Self.checkKeys(events.map { ($0.idempotencyKey, stream) }, in: state)
      return Self.write(events, to: stream, index: index, at: now, in: &state)
    }
  }

  public func append(_ events: [NewEvent], to stream: String, expected: ExpectedVersion)
    async throws(EventStoreError) -> AppendResult
  {
    let now = now()
    return try state.withLock { state throws(EventStoreError) in
      try Self.validate(events, stream: stream)
      try Self.checkKeys(events.map { ($0.idempotencyKey, stream) }, in: state)
      // Keys all stored: the stored events answer, whatever the version (as an append does).
      if !events.allSatisfy({ state.positionOfKey[$0.idempotencyKey] != nil }) {
        let version = Int64(state.eventsOfStream[stream]?.count ?? 0)
        try Self.check(expected, version: version)
      }
      return Self.write(events, to: stream, index: nil, at: now, in: &state)
    }
  }

  public func readStreams(_ streams: [String]) async throws(EventStoreError) -> [RecordedEvent] {
    state.withLock { state in Self.recorded(of: streams, in: state) }
  }

  public func readStreamFoldRows(_ streams: [String]) async throws(EventStoreError)
    -> [StreamFoldRow]
  {
    state.withLock { state in Self.recorded(of: streams, in: state).map(StreamFoldRow.init) }
  }

  public func readFeedEntries(after position: FeedPosition, limit: Int)
    async throws(EventStoreError) -> [FeedEntry]
  {
    state.withLock { state in
      state.events.lazy.filter { $0.position > position }.prefix(limit).map {
        FeedEntry(position: $0.position, streamId: $0.streamId, recordedAt: $0.recordedAt)
      }
    }
  }

  public func feedHead() async throws(EventStoreError) -> FeedPosition? {
    state.withLock { $0.events.last?.position }
  }

  public func streamIds(prefixed prefix: String, after streamId: String, limit: Int)
    async throws(EventStoreError) -> [String]
  {
    state.withLock { state in
      Array(
        state.eventsOfStream.keys.filter { $0 > streamId && $0.hasPrefix(prefix) }.sorted()
          .prefix(limit))
    }
  }

  public func checkpoint(_ name: String) async throws(EventStoreError) -> FeedPosition? {
    state.withLock { $0.checkpoints[name] }
  }

  public func moveCheckpoint(
    _ name: String, from expected: FeedPosition?, to position: FeedPosition
  ) async throws(EventStoreError) {
    try state.withLock { state throws(EventStoreError) in
      guard state.checkpoints[name] == expected else {
        throw EventStoreError(.checkpointConflict, "the checkpoint was moved by someone else")
      }
      state.checkpoints[name] = position
    }
  }

  // MARK: AccountReads

  public func events(of account: String, environment: String?, consistency: ReadConsistency)
    async throws(EventStoreError) -> ReadAnswer<[LedgerEvent]>
  {
    try state.withLock { state throws(EventStoreError) in
      ReadAnswer(value: try Self.ledgerEvents(of: account, environment: environment, in: state))
    }
  }

  public func recordedEvents(of account: String, consistency: ReadConsistency)
    async throws(EventStoreError) -> [RecordedEvent]
  {
    state.withLock { state in
      Self.recorded(of: (state.streamsOfAccount[account] ?? []).sorted(), in: state).filter {
        $0.erasedBy == nil
      }
    }
  }

  /// No views are stored in memory: every query folds the log.
  public func storedView(
    of account: String, part: AccountViewSlice.Part?, consistency: ReadConsistency
  ) async throws(EventStoreError) -> ReadAnswer<AccountViewSlice?> {
    ReadAnswer(value: nil)
  }

  // MARK: AccountIndex

  public func accounts(holding streams: [String]) async throws(EventStoreError) -> [String] {
    state.withLock { state in
      streams.reduce(into: Set<String>()) { $0.formUnion(state.accountsOfStream[$1] ?? []) }
        .sorted()
    }
  }

  public func refundRequestStreams(ofChain originalTransactionId: String)
    async throws(EventStoreError) -> [String]
  {
    state.withLock { state in
      Set(
        state.events.compactMap { event -> String? in
          guard
            case .requested(let requested)? = try? EventCodec.refundRequestEvent(
              eventType: event.eventType, payload: event.payload),
            requested.originalTransactionId == originalTransactionId
          else { return nil }
          return event.streamId
        }
      ).sorted()
    }
  }

  public func seatStreams(holdingClaims seatClaimIds: [String]) async throws(EventStoreError)
    -> [String]
  {
    // Claim ids are stored lower-case; the ids asked for may come in any case.
    let wanted = Set(seatClaimIds.map { $0.lowercased() })
    return state.withLock { state in
      Set(
        state.events.compactMap { event -> String? in
          guard event.eventType == SeatClaimEvent.eventType,
            case .seat(let seat)? = try? EventCodec.body(
              eventType: event.eventType, payload: event.payload),
            let id = seat.seatClaimId, wanted.contains(id)
          else { return nil }
          return event.streamId
        }
      ).sorted()
    }
  }

  public func note(_ sightings: [DownloadSighting]) async throws(EventStoreError)
    -> [DownloadSighting]
  {
    state.withLock { state in
      let downloads = Set(sightings.map { "\($0.environment)|\($0.appTransactionId)" })
      let before = state.downloads.values.filter {
        downloads.contains("\($0.environment)|\($0.appTransactionId)")
      }.sorted { Self.key($0) < Self.key($1) }
      for sighting in sightings {
        let key = Self.key(sighting)
        var stored = state.downloads[key] ?? sighting
        // A token an erasure quarantined is not attached again.
        stored.token = sighting.token.flatMap { state.isQuarantined($0) ? nil : $0 } ?? stored.token
        state.downloads[key] = stored
      }
      return before
    }
  }

  public func accounts(holdingDownload appTransactionId: String, environment: String)
    async throws(EventStoreError) -> [String]
  {
    state.withLock { state in
      var accounts: Set<String> = []
      for sighting in state.downloads.values
      where sighting.environment == environment && sighting.appTransactionId == appTransactionId {
        if let token = sighting.token { accounts.insert(token) }
        accounts.formUnion(
          state.accountsOfStream["sub:\(sighting.environment):\(sighting.chain)"] ?? [])
      }
      return accounts.sorted()
    }
  }
}
