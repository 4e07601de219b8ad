import Foundation
import Logging
import NIOCore
import PostgresNIO
import StoreLedgerCore

/// Every account's events in token order from one streamed statement (one snapshot;
/// PostgreSQL reads the log once, as a plain scan would), cut into pages of accounts: the
/// rows behind ``AccountEventPages``.
final class AccountEventPageReader {
  private var rows: PostgresRowSequence.AsyncIterator
  private let pageSize: Int
  /// The account begun by the row that ended the last page.
  private var pending: StoredAccountEvents?
  private var token: ByteBuffer?
  private var finished = false

  init(_ rows: PostgresRowSequence, pageSize: Int) {
    self.rows = rows.makeAsyncIterator()
    self.pageSize = max(1, pageSize)
  }

  /// The next `pageSize` accounts (fewer at the end), nil after the last.
  func next() async throws -> [StoredAccountEvents]? {
    guard !finished else { return nil }
    var page = pending.map { [$0] } ?? []
    pending = nil
    while let row = try await rows.next() {
      var cells = row.makeIterator()
      let token = cells.next()?.bytes
      if token != self.token || page.isEmpty {
        self.token = token
        var account = try Self.account(token: token, changes: cells.next())
        if let stored = try Self.row(&cells) { account.rows.append(stored) }
        if page.count == pageSize {
          pending = account
          return page
        }
        page.append(account)
      } else {
        _ = cells.next()
        if let stored = try Self.row(&cells) { page[page.count - 1].rows.append(stored) }
      }
    }
    finished = true
    return page.isEmpty ? nil : page
  }

  static let malformed = EventStoreError(.databaseRejected, "a rebuild row lacks a column")

  /// From the row's first two cells; the token is made once per account, not per row.
  private static func account(token: ByteBuffer?, changes: PostgresCell?) throws
    -> StoredAccountEvents
  {
    guard let token, let changes else { throw malformed }
    return StoredAccountEvents(
      token: String(buffer: token), changes: try changes.decode(Int64.self, context: .default))
  }

  /// The event's type, payload and key; nil for an account without events (null columns).
  private static func row(_ cells: inout PostgresRow.Iterator) throws -> StoredEventRow? {
    guard let type = cells.next(), let payload = cells.next(), let key = cells.next() else {
      throw malformed
    }
    guard let typeBytes = type.bytes, let bytes = payload.bytes else { return nil }
    return StoredEventRow(
      type: String(buffer: typeBytes), payload: Array(buffer: bytes),
      key: key.bytes.map { String(buffer: $0) })
  }
}
