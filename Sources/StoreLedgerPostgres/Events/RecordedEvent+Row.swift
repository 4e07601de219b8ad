import Foundation
import NIOCore
import PostgresNIO
import StoreLedgerCore

extension RecordedEvent {
  /// The columns `init(row:)` reads, in its order. The transaction id is renamed: a bare
  /// `tx_id::text` keeps the name `tx_id`, and `ORDER BY tx_id` would then sort the text
  /// ("1000" before "828") instead of the xid8.
  static let columns = """
    stream_id, stream_version, tx_id::text AS tx_id_text, seq, event_id, idempotency_key, event_type,
    environment, apple_signed_at, recorded_at, payload::text, raw_signed, metadata::text,
    prev_hash, hash, claims::text, erased_by
    """

  init(row: PostgresRow) throws {
    let cells = row.makeRandomAccess()
    self.init(
      streamId: try cells[0].decode(String.self),
      streamVersion: try cells[1].decode(Int64.self),
      position: FeedPosition(
        transactionId: try UInt64(cells[2].decode(String.self)).orThrow(),
        sequence: try cells[3].decode(Int64.self)),
      eventId: try cells[4].decode(UUID.self),
      idempotencyKey: try cells[5].decode(String.self),
      eventType: try cells[6].decode(String.self),
      environment: try cells[7].decode(String?.self),
      appleSignedAt: try cells[8].decode(Date?.self),
      recordedAt: try cells[9].decode(Date.self),
      payload: Array(try cells[10].decode(String.self).utf8),
      rawSigned: try cells[11].decode(String?.self),
      metadata: Array(try cells[12].decode(String.self).utf8),
      previousHash: Array(try cells[13].decode(ByteBuffer.self).readableBytesView),
      hash: Array(try cells[14].decode(ByteBuffer.self).readableBytesView),
      claims: try cells[15].decode(String?.self).map { Array($0.utf8) },
      erasedBy: try cells[16].decode(UUID?.self))
  }
}

extension Optional {
  /// Unwraps a value the database guarantees, such as a transaction id rendered as digits.
  func orThrow() throws -> Wrapped {
    guard let value = self else {
      throw EventStoreError(.databaseRejected, "the database returned an unexpected value")
    }
    return value
  }
}
