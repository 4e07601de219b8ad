import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

/// The statements of the change feed (`storeledger.changes`, schema/0016).
package enum ChangeFeedStatements {
  /// Appends the changes of several accounts in one statement; returns the accounts whose
  /// derivation moved (the others were derived by someone else first and append nothing).
  @discardableResult
  package static func append(
    _ accounts: [DerivedAccountChanges], on client: PostgresClient, logger: Logger
  )
    async throws -> Set<String>
  {
    guard !accounts.isEmpty else { return [] }
    let rows = accounts.flatMap { account in
      account.changes.enumerated().map { offset, derived in
        (account.token, account.firstOrdinal + Int64(offset), derived)
      }
    }
    let unbounded = Int64.min
    let query: PostgresQuery = """
      SELECT storeledger.append_changes(
        \(accounts.map(\.token))::text[], \(accounts.map(\.expectedVersion))::bigint[],
        \(accounts.map(\.events))::bigint[],
        \(accounts.map { $0.firstOrdinal + Int64($0.changes.count) })::bigint[],
        \(accounts.map { $0.instant?.milliseconds ?? unbounded })::bigint[],
        \(accounts.map { $0.due?.milliseconds ?? unbounded })::bigint[],

        \(rows.map(\.0))::text[], \(rows.map(\.1))::bigint[],
        \(rows.map { ChangeRecord.id(account: $0.0, ordinal: $0.1) })::uuid[],
        \(rows.map(\.2.change.kind.rawValue))::text[], \(rows.map(\.2.change.subject))::text[],
        \(rows.map { $0.2.change.old ?? "" })::text[], \(rows.map { $0.2.change.new ?? "" })::text[],
        \(rows.map(\.2.occurredAt.milliseconds))::bigint[], \(rows.map { $0.2.cause ?? "" })::text[],
        \(rows.map(\.2.effectiveAt.milliseconds))::bigint[])
      """
    return try await client.query(query, logger: logger) { result in
      var moved: Set<String> = []
      for try await token in result.decode(String.self) { moved.insert(token) }
      return moved
    }
  }

  /// Up to `limit` changes after `position`, in order; only `account`'s when one is given.
  package static func read(
    after position: Int64, limit: Int, account: String? = nil, on client: PostgresClient,
    logger: Logger
  ) async throws -> [ChangeRecord] {
    let query: PostgresQuery
    if let account {
      query = """
        SELECT \(unescaped: columns) FROM storeledger.changes
        WHERE app_account_token = \(account) AND position > \(position)
        ORDER BY ordinal LIMIT \(limit)
        """
    } else {
      query = """
        SELECT \(unescaped: columns) FROM storeledger.changes
        WHERE position > \(position) ORDER BY position LIMIT \(limit)
        """
    }
    return try await client.query(query, logger: logger, reading: decode)
  }

  /// A page of the account's changes, newest first, and how many it has in all.
  package static func newest(
    account: String, offset: Int, limit: Int, on client: PostgresClient, logger: Logger
  ) async throws -> (changes: [ChangeRecord], total: Int) {
    let records = try await client.query(
      """
      SELECT \(unescaped: columns) FROM storeledger.changes
      WHERE app_account_token = \(account)
      ORDER BY ordinal DESC OFFSET \(offset) LIMIT \(limit)
      """, logger: logger, reading: decode)
    let total = try await client.query(
      "SELECT count(*) FROM storeledger.changes WHERE app_account_token = \(account)",
      logger: logger
    ) { rows in
      var total: Int64 = 0
      for try await value in rows.decode(Int64.self) { total = value }
      return Int(total)
    }
    return (records, total)
  }

  /// Every change of each of `accounts`, each account's in order: one statement for a page of
  /// accounts (the audit's).
  package static func read(accounts: [String], on client: PostgresClient, logger: Logger)
    async throws -> [String: [ChangeRecord]]
  {
    let records = try await client.query(
      """
      SELECT \(unescaped: columns) FROM storeledger.changes
      WHERE app_account_token = ANY(\(accounts)::text[]) ORDER BY app_account_token, ordinal
      """, logger: logger, reading: decode)
    return Dictionary(grouping: records) { $0.change.appAccountToken ?? "" }
  }

  /// The changes at `positions`, in order.
  package static func read(positions: [Int64], on client: PostgresClient, logger: Logger)
    async throws -> [ChangeRecord]
  {
    try await client.query(
      """
      SELECT \(unescaped: columns) FROM storeledger.changes
      WHERE position = ANY(\(positions)::bigint[]) ORDER BY position
      """, logger: logger, reading: decode)
  }

  /// The newest position (0 when the feed is empty).
  package static func head(on client: PostgresClient, logger: Logger) async throws -> Int64 {
    try await client.query(
      "SELECT position FROM storeledger.change_feed_head", logger: logger
    ) { rows in
      var head: Int64 = 0
      for try await value in rows.decode(Int64.self) { head = value }
      return head
    }
  }

  /// The first position recorded at or after `time` (the head + 1 when none is).
  package static func firstPosition(
    recordedSince time: Date, on client: PostgresClient, logger: Logger
  )
    async throws -> Int64
  {
    try await client.query(
      """
      SELECT coalesce(min(position),
        (SELECT position + 1 FROM storeledger.change_feed_head))
      FROM storeledger.changes WHERE recorded_at >= \(time)
      """, logger: logger
    ) { rows in
      var first: Int64 = 1
      for try await value in rows.decode(Int64.self) { first = value }
      return first
    }
  }

  /// Accounts whose changes the clock makes due by `time`, soonest first.
  package static func due(at time: Timestamp, limit: Int, on client: PostgresClient, logger: Logger)
    async throws -> [String]
  {
    try await AccountViewStatements.strings(
      """
      SELECT app_account_token FROM storeledger.change_derivations
      WHERE due_ms <= \(time.milliseconds) ORDER BY due_ms LIMIT \(limit)
      """, on: client, logger: logger)
  }

  /// Accounts whose changes were never derived (their view predates the change feed, or no
  /// projector has refreshed them since): the projector derives them once, so the feed holds
  /// every account's changes from its first event.
  package static func underived(limit: Int, on client: PostgresClient, logger: Logger)
    async throws -> [String]
  {
    try await AccountViewStatements.strings(
      """
      SELECT v.app_account_token FROM storeledger.account_views v
      WHERE NOT EXISTS (
        SELECT 1 FROM storeledger.change_derivations d
        WHERE d.app_account_token = v.app_account_token)
      LIMIT \(limit)
      """, on: client, logger: logger)
  }

  static let columns =
    "position, change_id, ordinal, change_type, app_account_token, subject, old_value, "
    + "new_value, occurred_at_ms, cause, recorded_at, effective_at_ms"

  static func decode(_ rows: StatementRows) async throws -> [ChangeRecord] {
    var records: [ChangeRecord] = []
    for try await row in rows {
      let cells = row.makeRandomAccess()
      let type = try cells[3].decode(String.self)
      guard let kind = AccountChange.Kind(rawValue: type) else {
        throw EventStoreError(.unreadableEvent, "a stored change has an unknown type")
      }
      records.append(
        ChangeRecord(
          position: try cells[0].decode(Int64.self), id: try cells[1].decode(UUID.self),
          ordinal: try cells[2].decode(Int64.self),
          change: AccountChange(
            kind, account: try cells[4].decode(String.self),
            subject: try cells[5].decode(String.self), old: try cells[6].decode(String?.self),
            new: try cells[7].decode(String?.self)),
          occurredAt: Timestamp(milliseconds: try cells[8].decode(Int64.self)),
          effectiveAt: try cells[11].decode(Int64?.self).map(Timestamp.init(milliseconds:)),
          cause: try cells[9].decode(String?.self), recordedAt: try cells[10].decode(Date.self)))
    }
    return records
  }
}
