import Foundation
import Logging
import PostgresNIO

extension EventStore {
  /// Appends `events` to `streamId` in one transaction, or appends nothing.
  ///
  /// Under the stream's advisory lock: events whose key is already stored are not written
  /// again (when all are, this returns the original positions, `wasDuplicate == true`, without
  /// checking the version); otherwise the stream must satisfy `expected`, the new events get
  /// the next versions and one multi-row insert, then `hook` runs in the same transaction.
  public func append(
    _ events: [NewEvent], to streamId: String, expected: ExpectedVersion = .any,
    hook: AppendHook? = nil
  ) async throws(EventStoreError) -> AppendResult {
    try Self.validate(events, streamId: streamId)
    do {
      return try await appendOnce(events, to: streamId, expected: expected, hook: hook)
    } catch let error where error.sqlState == "23505" {
      // A concurrent append stored one of these keys in another stream first; once more, the
      // dedupe step sees it and reports it properly.
      return try await appendOnce(events, to: streamId, expected: expected, hook: hook)
    }
  }

  private func appendOnce(
    _ events: [NewEvent], to streamId: String, expected: ExpectedVersion, hook: AppendHook?
  ) async throws(EventStoreError) -> AppendResult {
    do {
      return try await client.withTransaction(logger: logger) { connection in
        try await connection.query(
          "SELECT pg_advisory_xact_lock(hashtextextended(\(streamId), 0))", logger: logger)
        let stored = try await storedEvents(keys: events.map(\.idempotencyKey), on: connection)
        if stored.values.contains(where: { $0.streamId != streamId }) {
          throw EventStoreError(
            .idempotencyKeyInOtherStream, "an idempotency key is already used in another stream")
        }
        let fresh = events.filter { stored[$0.idempotencyKey] == nil }
        if fresh.isEmpty {
          return AppendResult(
            streamId: streamId, events: events.map { stored[$0.idempotencyKey]!.event },
            wasDuplicate: true)
        }
        let head = try await streamHead(streamId, on: connection)
        guard expected.admits(currentVersion: head.version) else {
          throw EventStoreError(
            .wrongExpectedVersion,
            "expected \(expected) but the stream is at version \(head.version)")
        }
        let inserted = try await insert(fresh, into: streamId, after: head, on: connection)
        let result = AppendResult(
          streamId: streamId,
          events: events.map { stored[$0.idempotencyKey]?.event ?? inserted[$0.idempotencyKey]! },
          wasDuplicate: false)
        if let hook { try await Self.run(hook, on: connection, with: result) }
        return result
      }
    } catch {
      throw EventStoreError.database(error, while: "appending to a stream")
    }
  }

  private static func run(
    _ hook: AppendHook, on connection: PostgresConnection, with result: AppendResult
  ) async throws {
    do {
      try await hook(connection, result)
    } catch {
      throw EventStoreError(
        .hookFailed, "the in-transaction hook failed; nothing was appended",
        underlying: error as? any Error & Sendable)
    }
  }

  static func validate(_ events: [NewEvent], streamId: String) throws(EventStoreError) {
    guard !streamId.isEmpty, !events.isEmpty, events.count <= maximumBatchSize else {
      throw EventStoreError(
        .invalidEvent, "an append needs a stream id and 1…\(maximumBatchSize) events")
    }
    let keys = events.map(\.idempotencyKey)
    guard Set(keys).count == keys.count, !keys.contains("") else {
      throw EventStoreError(.invalidEvent, "idempotency keys must be non-empty and distinct")
    }
  }

  private struct StoredEvent {
    let streamId: String
    let event: AppendResult.Event
  }

  private func storedEvents(keys: [String], on connection: PostgresConnection) async throws
    -> [String: StoredEvent]
  {
    let rows = try await connection.query(
      """
      SELECT idempotency_key, stream_id, stream_version, tx_id::text, seq, event_id, recorded_at
      FROM storeledger.events WHERE idempotency_key = ANY(\(keys))
      """, logger: logger)
    var stored: [String: StoredEvent] = [:]
    for try await (key, stream, version, transaction, sequence, eventId, recordedAt) in rows.decode(
      (String, String, Int64, String, Int64, UUID, Date).self)
    {
      let position = FeedPosition(
        transactionId: try UInt64(transaction).orThrow(), sequence: sequence)
      stored[key] = StoredEvent(
        streamId: stream,
        event: AppendResult.Event(
          idempotencyKey: key, eventId: eventId, streamVersion: version, position: position,
          recordedAt: recordedAt))
    }
    return stored
  }

  struct StreamHead {
    let version: Int64
    let hash: [UInt8]
  }

  private func streamHead(_ streamId: String, on connection: PostgresConnection) async throws
    -> StreamHead
  {
    let rows = try await connection.query(
      """
      SELECT stream_version, hash FROM storeledger.events
      WHERE stream_id = \(streamId) ORDER BY stream_version DESC LIMIT 1
      """, logger: logger)
    // Row sequences are always read to the end: one left unfinished blocks its connection.
    var head = StreamHead(version: 0, hash: [UInt8](repeating: 0, count: 32))
    for try await (version, hash) in rows.decode((Int64, ByteBuffer).self) {
      head = StreamHead(version: version, hash: Array(hash.readableBytesView))
    }
    return head
  }
}
