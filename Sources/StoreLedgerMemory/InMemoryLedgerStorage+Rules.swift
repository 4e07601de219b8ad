import Crypto
import Foundation
import StoreLedgerCore
import Synchronization

/// The rules every write keeps (the PostgreSQL log's, in memory): valid events, keys in one
/// stream, expected versions, and how an event is written with its index entries.
extension InMemoryLedgerStorage {
  static func validate(_ events: [NewEvent], stream: String) throws(EventStoreError) {
    guard !stream.isEmpty, !events.isEmpty, events.count <= BatchAppend.maximumCount else {
      throw EventStoreError(
        .invalidEvent, "an append needs a stream id and 1…\(BatchAppend.maximumCount) events")
    }
    let keys = events.map(\.idempotencyKey)
    guard Set(keys).count == keys.count, !keys.contains("") else {
      throw EventStoreError(.invalidEvent, "idempotency keys must be non-empty and distinct")
    }
    for event in events {
      guard (try? JSONSerialization.jsonObject(with: Data(event.payload))) != nil,
        (try? JSONSerialization.jsonObject(with: Data(event.metadata))) is [String: Any]
      else {
        throw EventStoreError(.invalidEvent, "an event's payload or metadata is not JSON")
      }
    }
  }

  /// Throws `wrongExpectedVersion` when a stream at `version` does not satisfy `expected`.
  static func check(_ expected: ExpectedVersion, version: Int64) throws(EventStoreError) {
    let satisfied =
      switch expected {
      case .any: true
      case .noStream: version == 0
      case .exact(let wanted): version == wanted
      }
    guard satisfied else {
      throw EventStoreError(
        .wrongExpectedVersion, "the stream is at version \(version), not at the expected one")
    }
  }

  static let keyInOtherStream = EventStoreError(
    .idempotencyKeyInOtherStream, "an idempotency key is already used in another stream")

  static func checkKeys(_ keys: [(key: String, stream: String)], in state: State)
    throws(EventStoreError)
  {
    for (key, stream) in keys {
      if let stored = state.positionOfKey[key], state.events[stored].streamId != stream {
        throw keyInOtherStream
      }
    }
  }

  /// Writes what is new of `events` (keys already stored keep their event) and the index.
  static func write(
    _ events: [NewEvent], to stream: String, index: StreamIndex?, at now: Date,
    in state: inout State, sameTransaction: Bool = false
  ) -> AppendResult {
    let holders = (state.accountsOfStream[stream] ?? []).sorted()
    if !sameTransaction { state.transactions += 1 }
    var written: [AppendResult.Event] = []
    var storedBefore = 0
    for event in events {
      if let stored = state.positionOfKey[event.idempotencyKey] {
        storedBefore += 1
        written.append(Self.result(of: state.events[stored]))
        continue
      }
      let ordinals = state.eventsOfStream[stream] ?? []
      let previousHash = ordinals.last.map { state.events[$0].hash } ?? []
      let recorded = RecordedEvent(
        streamId: stream, streamVersion: Int64(ordinals.count + 1),
        position: FeedPosition(
          transactionId: state.transactions, sequence: Int64(state.events.count + 1)),
        eventId: event.eventId, idempotencyKey: event.idempotencyKey, eventType: event.eventType,
        environment: event.environment, appleSignedAt: event.appleSignedAt, recordedAt: now,
        payload: event.payload, rawSigned: event.rawSigned, metadata: event.metadata,
        previousHash: previousHash,
        hash: Array(
          SHA256.hash(data: previousHash + event.payload + Array(event.idempotencyKey.utf8))),
        claims: event.claims)
      state.positionOfKey[event.idempotencyKey] = state.events.count
      state.eventsOfStream[stream, default: []].append(state.events.count)
      state.events.append(recorded)
      written.append(Self.result(of: recorded))
    }
    var joined = false
    // An account an erasure quarantined is indexed no more; its rows are stored as always.
    let keys = (index?.keys ?? []).filter { !state.isQuarantined($0) }
    if let index, !index.isEmpty {
      for key in keys {
        for indexed in index.streams {
          state.streamsOfAccount[key, default: []].insert(indexed)
          state.accountsOfStream[indexed, default: []].insert(key)
          if state.joins[key, default: [:]][indexed] == nil {
            state.joins[key, default: [:]][indexed] = Join(
              transaction: state.transactions, at: now)
            joined = true
          }
        }
      }
    }
    // The append names every account holding the stream, as one more change to project.
    if storedBefore < events.count || joined {
      for account in Set(holders).union(keys) {
        state.views[account, default: ViewRow()].changes += 1
      }
    }
    return AppendResult(
      streamId: stream, events: written, wasDuplicate: storedBefore == events.count,
      holders: holders)
  }

  static func result(of event: RecordedEvent) -> AppendResult.Event {
    AppendResult.Event(
      idempotencyKey: event.idempotencyKey, eventId: event.eventId,
      streamVersion: event.streamVersion, position: event.position, recordedAt: event.recordedAt)
  }

  static func recorded(of streams: [String], in state: State) -> [RecordedEvent] {
    streams.flatMap { (state.eventsOfStream[$0] ?? []).map { state.events[$0] } }
  }

  /// As the account queries fold them: the account's streams in id order, each oldest first,
  /// without refund requests' events.
  static func ledgerEvents(of account: String, environment: String?, in state: State)
    throws(EventStoreError) -> [LedgerEvent]
  {
    let streams = (state.streamsOfAccount[account] ?? []).sorted()
    var events: [LedgerEvent] = []
    for event in recorded(of: streams, in: state)
    where event.erasedBy == nil && !ConsumptionEvent.eventTypes.contains(event.eventType)
      && (environment == nil || event.environment == nil || event.environment == environment)
    {
      do {
        events.append(try EventCodec.event(event))
      } catch {
        throw EventStoreError(
          .unreadableEvent, "a stored event does not read as its event type says")
      }
    }
    return events
  }

  static func key(_ sighting: DownloadSighting) -> String {
    "\(sighting.environment)|\(sighting.appTransactionId)|\(sighting.chain)"
  }
}
