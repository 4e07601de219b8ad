import Foundation
import PostgresNIO
import StoreLedgerCore

extension EventStore {
  /// Events of one stream from `version` on, in version order, at most `limit`.
  public func readStream(_ streamId: String, from version: Int64 = 1, limit: Int = 500)
    async throws(EventStoreError) -> [RecordedEvent]
  {
    do {
      return try await primary().query(
        """
        SELECT \(unescaped: RecordedEvent.columns) FROM storeledger.events
        WHERE stream_id = \(streamId) AND stream_version >= \(version)
        ORDER BY stream_version LIMIT \(limit)
        """, logger: logger, reading: Self.collect)
    } catch {
      throw failure(error, while: "reading a stream")
    }
  }

  /// Every event of the given streams, stream by stream in version order.
  public func readStreams(_ streamIds: [String]) async throws(EventStoreError) -> [RecordedEvent] {
    do {
      return try await primary().query(
        """
        SELECT \(unescaped: RecordedEvent.columns) FROM storeledger.events
        WHERE stream_id = ANY(\(streamIds)) ORDER BY stream_id, stream_version
        """, logger: logger, reading: Self.collect)
    } catch {
      throw failure(error, while: "reading streams")
    }
  }

  /// Every event of the given streams as a fold reads it, stream by stream in version order:
  /// none of the signed originals, claims or metadata ``readStreams(_:)`` carries.
  public func readStreamFoldRows(_ streamIds: [String]) async throws(EventStoreError)
    -> [StreamFoldRow]
  {
    do {
      return try await primary().query(
        """
        SELECT stream_id, tx_id::text, seq, recorded_at, event_type, payload::text,
          idempotency_key, erased_by
        FROM storeledger.events
        WHERE stream_id = ANY(\(streamIds)) ORDER BY stream_id, stream_version
        """, logger: logger
      ) { rows in
        var found: [StreamFoldRow] = []
        for try await (stream, transaction, sequence, recordedAt, type, payload, key, erasedBy)
          in rows.decode((String, String, Int64, Date, String, String, String, UUID?).self)
        {
          found.append(
            StreamFoldRow(
              streamId: stream,
              position: FeedPosition(
                transactionId: try UInt64(transaction).orThrow(), sequence: sequence),
              recordedAt: recordedAt, eventType: type, payload: Array(payload.utf8),
              idempotencyKey: key, erasedBy: erasedBy))
        }
        return found
      }
    } catch {
      throw failure(error, while: "reading streams")
    }
  }

  /// A whole stream as an async sequence, read page by page.
  public func stream(_ streamId: String, from version: Int64 = 1, pageSize: Int = 500)
    -> StreamEvents
  {
    StreamEvents(store: self, streamId: streamId, firstVersion: version, pageSize: pageSize)
  }

  /// The next events of the global feed after `position`, at most `limit`, in feed order.
  ///
  /// Only rows of transactions older than every transaction still running are returned
  /// (`tx_id < pg_snapshot_xmin(pg_current_snapshot())`): a transaction that commits late
  /// cannot slip in behind a position already handed out, so nothing is skipped, and since
  /// positions only grow nothing is read twice.
  public func readFeed(after position: FeedPosition, limit: Int = 500, shard: WorkShard = .whole)
    async throws(EventStoreError) -> [RecordedEvent]
  {
    do {
      return try await primary().query(
        """
        SELECT \(unescaped: RecordedEvent.columns) FROM storeledger.events
        WHERE (tx_id, seq) > (\(String(position.transactionId))::xid8, \(position.sequence))
          AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
          AND (\(shard.count) = 1
            OR ((hashtextextended(stream_id, 0) % \(shard.count)) + \(shard.count))
              % \(shard.count) = \(shard.index))
        ORDER BY events.tx_id, events.seq LIMIT \(limit)
        """, logger: logger, reading: Self.collect)
    } catch {
      throw failure(error, while: "reading the feed")
    }
  }

  /// The feed like ``readFeed(after:limit:)``, but only each row's position, stream, version
  /// and hash: the leaves of a signed checkpoint.
  public func readLeaves(after position: FeedPosition, limit: Int = 10_000)
    async throws(EventStoreError) -> [LogLeaf]
  {
    do {
      return try await primary().query(
        """
        SELECT events.tx_id::text, seq, stream_id, stream_version, hash FROM storeledger.events
        WHERE (tx_id, seq) > (\(String(position.transactionId))::xid8, \(position.sequence))
          AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY events.tx_id, events.seq LIMIT \(limit)
        """, logger: logger
      ) { rows in
        var leaves: [LogLeaf] = []
        for try await (transaction, sequence, stream, version, hash) in rows.decode(
          (String, Int64, String, Int64, ByteBuffer).self)
        {
          leaves.append(
            LogLeaf(
              position: FeedPosition(
                transactionId: try UInt64(transaction).orThrow(), sequence: sequence),
              streamId: stream, streamVersion: version, hash: Array(buffer: hash)))
        }
        return leaves
      }
    } catch {
      throw failure(error, while: "reading the log's row hashes")
    }
  }

  /// The feed like ``readFeed(after:limit:)``, but only each event's position, stream and
  /// recording time: a fraction of the bytes when the reader does not need the payloads.
  public func readFeedEntries(after position: FeedPosition, limit: Int = 1000)
    async throws(EventStoreError) -> [FeedEntry]
  {
    do {
      return try await primary().query(
        """
        SELECT events.tx_id::text, seq, stream_id, recorded_at FROM storeledger.events
        WHERE (tx_id, seq) > (\(String(position.transactionId))::xid8, \(position.sequence))
          AND tx_id < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY events.tx_id, events.seq LIMIT \(limit)
        """, logger: logger
      ) { rows in
        var entries: [FeedEntry] = []
        for try await (transaction, sequence, stream, recordedAt) in rows.decode(
          (String, Int64, String, Date).self)
        {
          let position = FeedPosition(
            transactionId: try UInt64(transaction).orThrow(), sequence: sequence)
          entries.append(FeedEntry(position: position, streamId: stream, recordedAt: recordedAt))
        }
        return entries
      }
    } catch {
      throw failure(error, while: "reading the feed")
    }
  }

  public func feedHead() async throws(EventStoreError) -> FeedPosition? {
    do {
      return try await primary().query(
        """
        SELECT events.tx_id::text, events.seq FROM storeledger.events
        WHERE tx_id < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY events.tx_id DESC, events.seq DESC LIMIT 1
        """, logger: logger
      ) { rows in
        var head: FeedPosition?
        for try await (transaction, sequence) in rows.decode((String, Int64).self) {
          head = FeedPosition(transactionId: try UInt64(transaction).orThrow(), sequence: sequence)
        }
        return head
      }
    } catch {
      throw failure(error, while: "reading the feed's head")
    }
  }

  /// Walks the primary key from `streamId` on; the prefix is a filter, not a range, because
  /// under the database's collation the ids that start with it need not sort together.
  public func streamIds(prefixed prefix: String, after streamId: String, limit: Int)
    async throws(EventStoreError) -> [String]
  {
    do {
      return try await primary().query(
        """
        SELECT DISTINCT stream_id FROM storeledger.events
        WHERE stream_id > \(streamId) AND starts_with(stream_id, \(prefix))
        ORDER BY stream_id LIMIT \(Int64(limit))
        """, logger: logger
      ) { rows in
        var ids: [String] = []
        for try await id in rows.decode(String.self) { ids.append(id) }
        return ids
      }
    } catch {
      throw failure(error, while: "listing the log's streams")
    }
  }

  static func collect(_ rows: StatementRows) async throws -> [RecordedEvent] {
    var events: [RecordedEvent] = []
    for try await row in rows { events.append(try RecordedEvent(row: row)) }
    return events
  }
}
