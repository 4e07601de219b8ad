import Logging
import PostgresNIO
import StoreLedgerCore
import Synchronization

/// Streaming replicas that answer reads beside the primary, with read-your-writes.
///
/// A write this process made to an account is noted after its commit (``noteWrite(to:)``,
/// which costs the write nothing more); a later read of that account on a replica first needs a
/// WAL position of the primary read after that commit (one statement shared by every read
/// waiting for one, or the monitor's last probe), then waits, up to ``Settings/maximumWait``,
/// for the replica to have replayed that far, else the primary answers. A replica that fails a
/// read is taken out of rotation at once and that read is answered by the primary;
/// ``monitor()`` takes out replicas that are unreachable, are no longer standbys, or lag more
/// than ``Settings/maximumLag``, and puts them back when they recover. Callers never see a
/// replica's failure: only the primary's.
public final class ReadReplicas: Sendable {
  public struct Settings: Sendable {
    /// How long a read waits for a replica to replay this process's write before the primary
    /// answers it instead.
    public var maximumWait: Duration
    /// A replica further behind the primary than this is taken out until it catches up.
    public var maximumLag: Duration
    /// How often ``monitor()`` checks the replicas.
    public var probeInterval: Duration
    /// A replica that takes longer than this to answer is taken out (the primary answers).
    public var replicaTimeout: Duration
    /// Accounts whose last write this process remembers (the oldest are forgotten past it).
    public var rememberedWrites: Int

    public init(
      maximumWait: Duration = .milliseconds(250), maximumLag: Duration = .seconds(5),
      probeInterval: Duration = .milliseconds(500), replicaTimeout: Duration = .seconds(2),
      rememberedWrites: Int = 100_000
    ) {
      self.maximumWait = maximumWait
      self.maximumLag = maximumLag
      self.probeInterval = probeInterval
      self.replicaTimeout = replicaTimeout
      self.rememberedWrites = rememberedWrites
    }
  }

  /// Thrown by a read's body when the replica lacks something the read needs (a feed
  /// position it has not replayed): the primary answers, the replica stays in rotation.
  public struct NotReplayedYet: Error {
    public init() {}
  }

  private struct Write {
    /// A position of the primary read after the commit; nil until a read or a probe needs one.
    var position: WALPosition?
    var at: ContinuousClock.Instant
  }

  private struct State {
    var writes: [String: Write] = [:]
    var order: [String] = []
    /// The primary's WAL position at each probe, oldest first, to tell how long ago a
    /// replica's replay position was the primary's.
    var samples: [(at: ContinuousClock.Instant, position: WALPosition)] = []
    var next = 0
  }

  /// Stands for a write whose position could not be read: its account is read on the primary
  /// until a position after it is known.
  static let unknown = WALPosition(.max)

  /// The primary's hosts (after a failover, the new primary's pool).
  let primaryHosts: DatabaseHosts

  /// How long a read on the primary, or a probe of its position, waits for the primary to be
  /// located (with several hosts; one host is never asked).
  static let locateLimit = Duration.seconds(10)
  public let replicas: [ReadReplica]
  public let settings: Settings
  let logger: Logger
  private let state = Mutex(State())
  private let positions: PrimaryPositionReader

  public convenience init(
    primary: PostgresClient, replicas: [ReadReplica], settings: Settings = Settings(),
    logger: Logger
  ) {
    self.init(
      primary: DatabaseHosts(client: primary, logger: logger), replicas: replicas,
      settings: settings, logger: logger)
  }

  public init(
    primary: DatabaseHosts, replicas: [ReadReplica], settings: Settings = Settings(),
    logger: Logger
  ) {
    self.primaryHosts = primary
    self.replicas = replicas
    self.settings = settings
    self.logger = logger
    let timeout = settings.replicaTimeout
    positions = PrimaryPositionReader {
      try? await withTimeout(timeout) {
        try await Self.insertPosition(of: primary, logger: logger)
      }
    }
  }

  public var statuses: [ReadReplica.Status] { replicas.map(\.status) }

  // MARK: Writes

  /// A write naming `accounts` has committed: later reads of them in this process wait for a
  /// replica to replay it. Only remembers when: the position is read when a read needs it.
  public func noteWrite(to accounts: [String]) {
    guard !accounts.isEmpty, !replicas.isEmpty else { return }
    let at = ContinuousClock.now
    state.withLock { state in
      for token in accounts {
        if state.writes[token] == nil { state.order.append(token) }
        state.writes[token] = Write(position: nil, at: at)
      }
      forgetOldest(&state)
    }
  }

  /// The position a read of `account` must see, if this process wrote to it lately: for a
  /// write whose position is not known yet, one of the primary's read after its commit (or
  /// ``unknown`` when the primary does not answer).
  func requiredPosition(for account: String) async -> WALPosition? {
    guard let write = state.withLock({ $0.writes[account] }) else { return nil }
    if let position = write.position { return position }
    guard let position = await positions.position(after: write.at) else { return Self.unknown }
    state.withLock { state in
      if state.writes[account]?.at == write.at { state.writes[account]?.position = position }
    }
    return position
  }

  private func forgetOldest(_ state: inout State) {
    guard state.writes.count > settings.rememberedWrites else { return }
    let target = settings.rememberedWrites - settings.rememberedWrites / 10
    var dropped = 0
    while state.writes.count > target, dropped < state.order.count {
      state.writes[state.order[dropped]] = nil
      dropped += 1
    }
    state.order = state.order[dropped...].filter { state.writes[$0] != nil }
  }

  // MARK: Reads

  /// Runs `body` on a replica in rotation when `consistency` allows and the replica has
  /// replayed this process's writes to `account`; else, or when the replica fails, on the
  /// primary. Errors thrown are the primary's only.
  public func read<Value: Sendable>(
    account: String?, consistency: ReadConsistency,
    _ body: @escaping @Sendable (PostgresClient) async throws -> Value
  ) async throws -> ReadAnswer<Value> {
    let (hosts, logger) = (primaryHosts, self.logger)
    return try await read(account: account, consistency: consistency, body) {
      try await Self.onPrimary(hosts, logger: logger, body)
    }
  }

  /// The same, the primary's reads made by `onPrimary` (the caller's path to the primary,
  /// with its timeout and its following of a new primary).
  package func read<Value: Sendable>(
    account: String?, consistency: ReadConsistency,
    _ body: @escaping @Sendable (PostgresClient) async throws -> Value,
    onPrimary: @Sendable () async throws -> Value
  ) async throws -> ReadAnswer<Value> {
    guard consistency == .readYourWrites, let replica = nextReplica() else {
      return ReadAnswer(value: try await onPrimary(), replica: nil)
    }
    if let account, let required = await requiredPosition(for: account),
      await !caughtUp(replica, to: required)
    {
      replica.count(served: false)
      return ReadAnswer(value: try await onPrimary(), replica: nil)
    }
    do {
      let value = try await withTimeout(settings.replicaTimeout) { try await body(replica.client) }
      replica.count(served: true)
      return ReadAnswer(value: value, replica: replica.name)
    } catch {
      if Task.isCancelled { throw error }
      if !(error is NotReplayedYet), !Self.isStatementError(error) {
        takeOut(replica, because: "a read failed (\(Self.kind(of: error)))")
      }
      replica.count(served: false)
      return ReadAnswer(value: try await onPrimary(), replica: nil)
    }
  }

  /// `body` on the located primary; a failure that says the primary was lost makes the hosts
  /// be asked again before the next statement.
  static func onPrimary<Value: Sendable>(
    _ hosts: DatabaseHosts, logger: Logger,
    _ body: @Sendable (PostgresClient) async throws -> Value
  ) async throws -> Value {
    let client = try await hosts.located(within: locateLimit)
    do {
      return try await body(client)
    } catch {
      if hosts.asks, DatabaseHosts.losesHost(error) { hosts.lost(client) }
      throw error
    }
  }

  /// The next replica in rotation, round robin; nil when none is.
  private func nextReplica() -> ReadReplica? {
    let candidates = replicas.filter(\.inRotation)
    guard !candidates.isEmpty else { return nil }
    let index = state.withLock { state in
      state.next &+= 1
      return state.next
    }
    return candidates[index % candidates.count]
  }

  /// Whether `replica` has replayed `position`, asking it until ``Settings/maximumWait``.
  private func caughtUp(_ replica: ReadReplica, to position: WALPosition) async -> Bool {
    if position == Self.unknown { return false }
    if replica.hasReplayed(position) { return true }
    let deadline = ContinuousClock.now + settings.maximumWait
    while true {
      guard let replayed = await replayPosition(of: replica) else { return false }
      if replayed >= position { return true }
      if ContinuousClock.now >= deadline { return false }
      try? await Task.sleep(for: .milliseconds(2))
    }
  }

  /// The replica's replay position now; nil (and the replica taken out) when it does not
  /// answer or is not a standby.
  private func replayPosition(of replica: ReadReplica) async -> WALPosition? {
    let logger = self.logger
    do {
      let replayed = try await withTimeout(settings.replicaTimeout) {
        try await Self.replayPosition(on: replica.client, logger: logger)
      }
      guard let replayed else {
        takeOut(replica, because: "it is not a standby")
        replica.hosts.lostCurrent()
        return nil
      }
      replica.noteReplayed(replayed)
      return replayed
    } catch {
      // The caller gave up (its own deadline ran out while the replica replayed slowly, or it
      // was cancelled): that says nothing against the replica, which stays in rotation.
      if Task.isCancelled { return nil }
      takeOut(replica, because: "it does not answer (\(Self.kind(of: error)))")
      replica.hosts.lostCurrent()
      return nil
    }
  }

  // MARK: Health

  /// Checks every replica each ``Settings/probeInterval`` until the task is cancelled.
  public func monitor() async {
    while !Task.isCancelled {
      await probe()
      do { try await Task.sleep(for: settings.probeInterval) } catch { return }
    }
  }

  /// One check: the primary's position, then each replica's: unreachable, not a standby, or
  /// more than ``Settings/maximumLag`` behind takes it out; otherwise it is (put back) in.
  public func probe() async {
    let at = ContinuousClock.now
    let (primary, logger) = (self.primaryHosts, self.logger)
    if let position = try? await withTimeout(
      settings.replicaTimeout,
      {
        try await Self.insertPosition(of: primary, logger: logger)
      })
    {
      state.withLock { $0.samples.append((at, position)) }
      positions.offer(position, readingStartedAt: at)
    }
    await withTaskGroup(of: Void.self) { group in
      for replica in replicas {
        group.addTask { await self.check(replica) }
      }
    }
    forgetReplayedWrites()
  }

  private func check(_ replica: ReadReplica) async {
    if replica.hosts.asks {
      // A replica URL naming several hosts follows the standby (after a failover, the old
      // primary once it rejoins).
      _ = try? await replica.hosts.located(within: settings.replicaTimeout)
    }
    guard let replayed = await replayPosition(of: replica) else { return }
    let behindSince = state.withLock { state in
      state.samples.first { $0.position > replayed }?.at
    }
    if let behindSince, ContinuousClock.now - behindSince > settings.maximumLag {
      takeOut(replica, because: "it is more than \(settings.maximumLag) behind the primary")
    } else if replica.putBack() {
      logger.notice("read replica back in rotation", metadata: ["replica": "\(replica.name)"])
    }
  }

  /// Drops writes every replica has replayed and samples no replica needs, and gives writes of
  /// no known position the newest primary position, when it was read after them.
  private func forgetReplayedWrites() {
    let replayed = replicas.map { $0.status.replayed ?? WALPosition(0) }.min() ?? WALPosition(0)
    state.withLock { state in
      let newest = state.samples.last
      if let newest, state.samples.count > 1 {
        let needed = state.samples.dropLast().filter { $0.position > replayed }
        state.samples = Array(needed.suffix(10_000)) + [newest]
      }
      for (token, write) in state.writes {
        if write.position == nil, let newest, newest.at > write.at {
          state.writes[token]?.position = newest.position
        }
        if let position = state.writes[token]?.position, position <= replayed {
          state.writes[token] = nil
        }
      }
      if state.order.count > 2 * state.writes.count + 1000 {
        state.order = state.order.filter { state.writes[$0] != nil }
      }
    }
  }

  private func takeOut(_ replica: ReadReplica, because reason: String) {
    if replica.takeOut(because: reason) {
      logger.warning(
        "read replica out of rotation",
        metadata: ["replica": "\(replica.name)", "reason": "\(reason)"])
    }
  }

  // MARK: Statements

  /// The located primary's WAL insert position.
  static func insertPosition(of hosts: DatabaseHosts, logger: Logger) async throws -> WALPosition {
    try await onPrimary(hosts, logger: logger) { client in
      try await insertPosition(on: client, logger: logger)
    }
  }

  static func insertPosition(on client: PostgresClient, logger: Logger) async throws
    -> WALPosition
  {
    let text = try await client.query(
      "SELECT pg_current_wal_insert_lsn()::text", logger: logger
    ) { rows in
      var text = ""
      for try await value in rows.decode(String.self) { text = value }
      return text
    }
    guard let position = WALPosition(text) else { throw NotReplayedYet() }
    return position
  }

  /// Nil when the server is not in recovery (a primary, or a promoted replica).
  static func replayPosition(on client: PostgresClient, logger: Logger) async throws
    -> WALPosition?
  {
    try await client.query(
      "SELECT pg_last_wal_replay_lsn()::text WHERE pg_is_in_recovery()", logger: logger
    ) { rows in
      var text: String?
      for try await value in rows.decode(String?.self) { text = value }
      return text.flatMap(WALPosition.init)
    }
  }

  /// An error the server raised for the statement (a conflict with recovery, say): the
  /// replica itself is fine.
  static func isStatementError(_ error: any Error) -> Bool {
    (error as? PSQLError)?.code == .server
  }

  static func kind(of error: any Error) -> String {
    if error is TimeoutError { return "timeout" }
    if let error = error as? PSQLError { return "\(error.code)" }
    return "\(type(of: error))"
  }
}
