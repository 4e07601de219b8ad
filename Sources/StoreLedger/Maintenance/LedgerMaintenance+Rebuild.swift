import Foundation
import PostgresNIO
import StoreLedgerCore
import StoreLedgerPostgres

extension LedgerMaintenance {
  /// Projects every account from the log into a fresh version of the account views table
  /// while the live one keeps answering, then makes it live in one transaction; the replaced
  /// version stays (`storeledger.account_views_v<N>`) for ``accountViewsDifferences(from:)``
  /// until ``dropAccountViewsVersion(_:)``. The log is streamed in one statement; batches of
  /// `pageSize` accounts are decoded, folded and stored, `concurrency` at once, so memory
  /// holds only those batches' events.
  ///
  /// Accounts appended to while it ran are projected again right after the switch; until
  /// then their views are not current and queries fold them from the log.
  @discardableResult
  public func rebuildAccountViews(
    pageSize: Int = 200, concurrency: Int = 2, now: Date = Date(),
    progress: (@Sendable (RebuildProgress) -> Void)? = nil
  ) async throws(LedgerError) -> AccountViewsRebuild {
    let started = ContinuousClock.now
    let (client, logger) = (try ledger.storage.database().client, ledger.storage.logger)
    // A release that now reads the app of unrouted evidence routes it before projecting.
    let unrouted = try await LedgerMaintenance(ledger: ledger).reexamineUnrouted()
    do {
      let (replaced, total, version) = try await ledger.storage.bounded {
        let replaced = try await AccountViewsRebuildStatements.liveVersion(
          on: client, logger: logger)
        let total = try await AccountViewsRebuildStatements.accountCount(
          on: client, logger: logger)
        let version = try await AccountViewsRebuildStatements.begin(on: client, logger: logger)
        return (replaced, total, version)
      }
      let (accounts, events) = try await fill(
        version: version, total: total, pageSize: max(1, pageSize),
        concurrency: max(1, concurrency), now: now, progress: progress)
      let stale = try await ledger.storage.bounded {
        try await AccountViewsRebuildStatements.switchLive(to: version, on: client, logger: logger)
      }
      for start in stride(from: 0, to: stale.count, by: 100) {
        try await ledger.views.refreshViews(
          of: Array(stale[start..<min(start + 100, stale.count)]), now: now)
      }
      let elapsed = ContinuousClock.now - started
      return AccountViewsRebuild(
        version: version, replacedVersion: replaced, accounts: accounts, events: events,
        projectedAfterSwitch: stale.count, unrouted: unrouted,
        seconds: elapsed.seconds)
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }

  // MARK: A rebuild split across processes

  /// Begins a rebuild that several processes fill (``fillAccountViews(version:shard:pageSize:concurrency:now:)``
  /// with shares 0…N-1), switched live once with ``switchAccountViews(to:now:)``; returns the
  /// new version.
  public func beginAccountViewsRebuild() async throws(LedgerError) -> Int {
    let (client, logger) = (try ledger.storage.database().client, ledger.storage.logger)
    do {
      return try await ledger.storage.bounded {
        try await AccountViewsRebuildStatements.begin(on: client, logger: logger)
      }
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }

  /// Projects the accounts of `shard` into `version` (begun, not yet live); returns how many
  /// accounts and events it projected.
  public func fillAccountViews(
    version: Int, shard: WorkShard, pageSize: Int = 200, concurrency: Int = 2, now: Date = Date()
  ) async throws(LedgerError) -> (accounts: Int, events: Int) {
    do {
      return try await fill(
        version: version, total: 0, pageSize: max(1, pageSize), concurrency: max(1, concurrency),
        now: now, shard: shard, progress: nil)
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }

  /// Makes `version` live; accounts appended to meanwhile, and any no share filled, are
  /// projected again right after. Returns how many those were.
  public func switchAccountViews(to version: Int, now: Date = Date()) async throws(LedgerError)
    -> Int
  {
    let (client, logger) = (try ledger.storage.database().client, ledger.storage.logger)
    do {
      let stale = try await ledger.storage.bounded {
        try await AccountViewsRebuildStatements.switchLive(to: version, on: client, logger: logger)
      }
      for start in stride(from: 0, to: stale.count, by: 100) {
        try await ledger.views.refreshViews(
          of: Array(stale[start..<min(start + 100, stale.count)]), now: now)
      }
      return stale.count
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }

  /// Every version of the account views table, oldest first.
  public func accountViewsVersions() async throws(LedgerError) -> [AccountViewsVersion] {
    let (client, logger) = (try ledger.storage.database().client, ledger.storage.logger)
    do {
      return try await ledger.storage.bounded {
        try await AccountViewsRebuildStatements.versions(on: client, logger: logger)
      }
    } catch {
      throw Self.versionError(error)
    }
  }

  /// The accounts whose view differs between the live table and retired `version`.
  public func accountViewsDifferences(from version: Int) async throws(LedgerError)
    -> [AccountViewDifference]
  {
    let (client, logger) = (try ledger.storage.database().client, ledger.storage.logger)
    do {
      return try await ledger.storage.bounded {
        try await AccountViewsRebuildStatements.differences(
          from: version, on: client, logger: logger)
      }
    } catch {
      throw Self.versionError(error)
    }
  }

  /// Drops a retired version's table.
  public func dropAccountViewsVersion(_ version: Int) async throws(LedgerError) {
    let (client, logger) = (try ledger.storage.database().client, ledger.storage.logger)
    do {
      try await ledger.storage.bounded {
        try await AccountViewsRebuildStatements.drop(version, on: client, logger: logger)
      }
    } catch {
      throw Self.versionError(error)
    }
  }

  /// Fills version `version` from one streamed statement over every account's events in
  /// token order (one snapshot; PostgreSQL reads the log once, as a plain scan would): the
  /// rows of `pageSize` accounts at a time go to up to `concurrency` workers that decode,
  /// fold and store them while the stream goes on, so memory holds only those batches.
  /// Returns how many accounts and events it projected.
  func fill(
    version: Int, total: Int, pageSize: Int, concurrency: Int, now: Date,
    shard: WorkShard = .whole, progress: (@Sendable (RebuildProgress) -> Void)?
  ) async throws -> (accounts: Int, events: Int) {
    let client = try ledger.storage.database().client
    return try await client.withConnection { connection in
      try await connection.failingOnClose { connection in
        let rows = try await connection.query(
          AccountViewsRebuildStatements.accountsEvents(shard: shard), logger: ledger.storage.logger)
        return try await self.fill(
          from: rows, version: version, total: total, pageSize: pageSize,
          concurrency: concurrency, now: now, progress: progress)
      }
    }
  }

  private func fill(
    from rows: PostgresRowSequence, version: Int, total: Int, pageSize: Int, concurrency: Int,
    now: Date, progress: (@Sendable (RebuildProgress) -> Void)?
  ) async throws -> (accounts: Int, events: Int) {
    try await withThrowingTaskGroup(of: (Int, Int).self) { group in
      var (batch, accounts, events, running) = ([StoredAccount](), 0, 0, 0)
      var iterator = rows.makeAsyncIterator()
      var tokenBytes: ByteBuffer?
      while true {
        let row = try await iterator.next()
        var cells = row?.makeIterator()
        let token = cells?.next()?.bytes
        let isNewAccount = row != nil && (token != tokenBytes || batch.isEmpty)
        if row == nil || (isNewAccount && batch.count == pageSize) {
          if running == concurrency, let (done, folded) = try await group.next() {
            (accounts, events, running) = (accounts + done, events + folded, running - 1)
            progress?(RebuildProgress(accounts: accounts, totalAccounts: total, events: events))
          }
          let full = batch
          batch = []
          group.addTask { try await self.rebuild(full, into: version, now: now) }
          running += 1
        }
        guard var cells else { break }
        if isNewAccount {
          tokenBytes = token
          batch.append(try StoredAccount(token: token, changes: cells.next()))
        } else {
          _ = cells.next()
        }
        if let stored = try StoredRow(&cells) { batch[batch.count - 1].rows.append(stored) }
      }
      for try await (done, folded) in group {
        (accounts, events) = (accounts + done, events + folded)
        progress?(RebuildProgress(accounts: accounts, totalAccounts: total, events: events))
      }
      return (accounts, events)
    }
  }

  /// One account's stored rows, not yet decoded.
  struct StoredAccount: Sendable {
    var token: String
    var changes: Int64
    var rows: [StoredRow] = []

    /// From the row's first two cells; the token is made once per account, not per row.
    init(token: ByteBuffer?, changes: PostgresCell?) throws {
      guard let token, let changes else { throw StoredRow.malformed }
      self.token = String(buffer: token)
      self.changes = try changes.decode(Int64.self, context: .default)
    }
  }

  /// One event row as the statement sends it: the payload stays in the bytes it arrived in
  /// until a worker decodes it (no intermediate `String`).
  struct StoredRow: Sendable {
    var type: String
    var payload: ByteBuffer
    var key: String?

    static let malformed = LedgerError(.databaseRejected, "a rebuild row lacks a column")

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
  }

  /// Decodes, folds and stores one batch of accounts into version `version`; returns
  /// (accounts, events).
  private func rebuild(_ batch: [StoredAccount], into version: Int, now: Date) async throws -> (
    Int, Int
  ) {
    let (client, logger, projection) = (
      try ledger.storage.database().client, ledger.storage.logger, ledger.views.projection
    )
    let instant = Timestamp(now)
    var events = 0
    let views = try batch.map { account in
      events += account.rows.count
      // A refund request's events sit in the account's index for its changes, not its fold.
      let inputs = try account.rows.filter { EventCodec.holdsLedgerEvent($0.type) }.map { row in
        FoldInput(
          try row.payload.withUnsafeReadableBytes {
            try EventCodec.body(eventType: row.type, payload: $0)
          }, key: row.key)
      }
      return ledger.views.projectedView(
        of: account.token, changes: account.changes, inputs: inputs, at: instant)
    }
    try await ledger.storage.bounded {
      try await AccountViewsRebuildStatements.store(
        views, version: version, projection: projection, on: client, logger: logger)
    }
    return (views.count, events)
  }

  /// The rebuild functions' refusals (a version that is not retired) as invalid requests.
  private static func versionError(_ error: any Error) -> LedgerError {
    if let psql = error as? PSQLError, let state = psql.serverInfo?[.sqlState],
      state == "SL010" || state == "SL011"
    {
      return LedgerError(
        .invalidRequest, psql.serverInfo?[.message] ?? "no such account views version")
    }
    return LedgerStorage.mapped(error)
  }
}
