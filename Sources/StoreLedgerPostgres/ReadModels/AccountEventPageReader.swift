import Foundation
import Logging
import NIOCore
import PostgresNIO
import StoreLedgerCore

/// Every account's events in token order, read a slice of the account index per statement,
/// each slice after the last (token, stream) of the one before (keyset paging), and handed out
/// in pages of whole accounts: the rows behind ``AccountEventPages``. The caller runs the
/// statements in one repeatable-read transaction, so every slice reads the same snapshot.
final class AccountEventPageReader {
  /// Runs `AccountViewsRebuildStatements.accountsEventsPage` after a token and stream, for a
  /// number of index rows.
  typealias Fetch = (_ token: String, _ stream: String, _ limit: Int) async throws -> StatementRows

  private let fetch: Fetch
  private let pageSize: Int
  /// The last index row read; empty strings sort before every row (neither is ever empty).
  private var last = (token: "", stream: "")
  /// The last account read, whose streams may go on in the next slice.
  private var pending: StoredAccountEvents?
  private var exhausted = false

  init(pageSize: Int, fetch: @escaping Fetch) {
    self.pageSize = max(1, pageSize)
    self.fetch = fetch
  }

  /// The next `pageSize` accounts (a few more when a slice ends past them; fewer at the end),
  /// nil after the last.
  func next() async throws -> [StoredAccountEvents]? {
    var page: [StoredAccountEvents] = []
    while page.count < pageSize, !exhausted {
      let rows = try await fetch(last.token, last.stream, pageSize)
      guard let end = rows.rows.last else {
        exhausted = true
        break
      }
      let (token, stream) = try end.decode((String, String).self)
      last = (token, stream)
      var accounts = try Self.accounts(of: rows)
      if let previous = pending {
        if accounts.first?.token == previous.token {
          accounts[0].rows = previous.rows + accounts[0].rows
        } else {
          page.append(previous)
        }
      }
      pending = accounts.popLast()
      page += accounts
    }
    if exhausted, let previous = pending {
      page.append(previous)
      pending = nil
    }
    return page.isEmpty ? nil : page
  }

  static let malformed = EventStoreError(.databaseRejected, "a rebuild row lacks a column")

  /// A slice's rows grouped by account; consecutive rows with the same token are one account.
  static func accounts(of rows: StatementRows) throws -> [StoredAccountEvents] {
    var page: [StoredAccountEvents] = []
    var token: ByteBuffer?
    for row in rows.rows {
      var cells = row.makeIterator()
      let rowToken = cells.next()?.bytes
      _ = cells.next()  // the stream
      if rowToken != token || page.isEmpty {
        token = rowToken
        page.append(try account(token: rowToken, changes: cells.next()))
      } else {
        _ = cells.next()
      }
      if let stored = try Self.row(&cells) { page[page.count - 1].rows.append(stored) }
    }
    return page
  }

  /// From the row's token and changes cells; the token is made once per account, not per row.
  private static func account(token: ByteBuffer?, changes: PostgresCell?) throws
    -> StoredAccountEvents
  {
    guard let token, let changes else { throw malformed }
    return StoredAccountEvents(
      token: String(buffer: token), changes: try changes.decode(Int64.self, context: .default))
  }

  /// The event's type, payload, key and recording; nil for an account without events (null columns).
  private static func row(_ cells: inout PostgresRow.Iterator) throws -> StoredEventRow? {
    guard let type = cells.next(), let payload = cells.next(), let key = cells.next(),
      let recorded = cells.next()
    else {
      throw malformed
    }
    guard let typeBytes = type.bytes, let bytes = payload.bytes else { return nil }
    return StoredEventRow(
      type: String(buffer: typeBytes), payload: Array(buffer: bytes),
      key: key.bytes.map { String(buffer: $0) },
      // As the projector's read makes it, so both derive the same status history.
      recordedAt: try recorded.decode(Date?.self, context: .default).map(Timestamp.init))
  }
}
