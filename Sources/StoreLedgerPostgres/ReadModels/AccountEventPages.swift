import Foundation
import Logging
import NIOCore
import PostgresNIO
import StoreLedgerCore

/// Every account's events in token order from one streamed statement (one snapshot;
/// PostgreSQL reads the log once, as a plain scan would), a page of accounts at a time: what
/// a rebuild of the account views folds. Memory holds one page and what the caller keeps.
public struct AccountEventPages {
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
  public mutating func next() async throws -> [StoredAccountEvents]? {
    guard !finished else { return nil }
    var page = pending.map { [$0] } ?? []
    pending = nil
    while let row = try await rows.next() {
      var cells = row.makeIterator()
      let token = cells.next()?.bytes
      if token != self.token || page.isEmpty {
        self.token = token
        var account = try StoredAccountEvents(token: token, changes: cells.next())
        if let stored = try StoredEventRow(&cells) { account.rows.append(stored) }
        if page.count == pageSize {
          pending = account
          return page
        }
        page.append(account)
      } else {
        _ = cells.next()
        if let stored = try StoredEventRow(&cells) { page[page.count - 1].rows.append(stored) }
      }
    }
    finished = true
    return page.isEmpty ? nil : page
  }
}

extension PostgresLedgerDatabase {
  /// Runs `body` with the pages of every account's events (of `shard`) on one connection.
  public func withAccountEventPages<Result: Sendable>(
    shard: WorkShard = .whole, pageSize: Int, logger: Logger,
    _ body: @escaping @Sendable (inout AccountEventPages) async throws -> Result
  ) async throws -> Result {
    try await client.withConnection { connection in
      try await connection.failingOnClose { connection in
        let rows = try await connection.query(
          AccountViewsRebuildStatements.accountsEvents(shard: shard), logger: logger)
        var pages = AccountEventPages(rows, pageSize: pageSize)
        return try await body(&pages)
      }
    }
  }
}

/// One account's stored rows, not yet decoded.
public struct StoredAccountEvents: Sendable {
  public var token: String
  /// Appends that named the account.
  public var changes: Int64
  public var rows: [StoredEventRow] = []

  /// From the row's first two cells; the token is made once per account, not per row.
  init(token: ByteBuffer?, changes: PostgresCell?) throws {
    guard let token, let changes else { throw StoredEventRow.malformed }
    self.token = String(buffer: token)
    self.changes = try changes.decode(Int64.self, context: .default)
  }
}

/// One event row as the statement sends it: the payload stays in the bytes it arrived in
/// until it is decoded (no intermediate `String`), by whichever worker folds it.
public struct StoredEventRow: Sendable {
  public var type: String
  var payload: ByteBuffer
  public var key: String?

  static let malformed = EventStoreError(.databaseRejected, "a rebuild row lacks a column")

  /// Nil for an account without events (null event columns).
  init?(_ cells: inout PostgresRow.Iterator) throws {
    guard let type = cells.next(), let payload = cells.next(), let key = cells.next() else {
      throw Self.malformed
    }
    guard let typeBytes = type.bytes, let bytes = payload.bytes else { return nil }
    self.type = String(buffer: typeBytes)
    self.payload = bytes
    self.key = key.bytes.map { String(buffer: $0) }
  }

  /// Whether the row holds a ledger event (a refund request's steps sit in the account's
  /// index for its changes, not its fold).
  public var holdsLedgerEvent: Bool { EventCodec.holdsLedgerEvent(type) }

  /// The ledger event's facts, read through the codec.
  public func body() throws -> LedgerEvent.Body {
    try payload.withUnsafeReadableBytes { try EventCodec.body(eventType: type, payload: $0) }
  }
}
