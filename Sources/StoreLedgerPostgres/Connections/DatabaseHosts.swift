import Foundation
import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import StoreLedgerCore
import Synchronization

/// The hosts one database URL names, a pool to each, and which of them statements go to: the
/// one that accepts writes for the ledger's database, a standby for a read replica's.
///
/// PostgresNIO connects to one address, so a URL naming several hosts (a pg_auto_failover or
/// Patroni formation) gets a pool per host, and ``current`` is the pool of the host that has
/// the role asked for. When that host is lost (its connections close, it answers SQLSTATE
/// 25006 "read-only transaction" because it was demoted, an administrator shut it down),
/// ``lost(_:)`` forgets it and the next ``located(before:)`` asks every host again, with a
/// connection of its own, until one has the role or the caller's deadline passes. Callers
/// share one round of questions at a time.
///
/// While the pools run, the chosen host is asked through its pool every ``recheck`` whether it
/// still has the role: a planned switch demotes a primary whose pool reconnects to it, as a
/// standby now, without any statement failing, and reads alone would never notice.
///
/// A URL with one host and no `target_session_attrs` is never asked anything: its pool is
/// ``current`` for good and reconnects by itself, as before.
public final class DatabaseHosts: Sendable {
  /// What the chosen host must be.
  public enum Role: String, Sendable, Hashable {
    /// Accepts writes: not in recovery, `transaction_read_only` off.
    case primary
    /// In recovery (a streaming standby).
    case standby
    /// A standby when one answers, else any host that answers.
    case preferStandby
    /// Any host that answers.
    case any
  }

  /// What one host answered when asked.
  public enum Answer: Sendable, Hashable, CustomStringConvertible {
    case acceptsWrites
    case standby
    /// Not in recovery but read-only (`default_transaction_read_only`).
    case readOnly
    case unreachable(String)

    public var description: String {
      switch self {
      case .acceptsWrites: "accepts writes"
      case .standby: "is a standby (in recovery)"
      case .readOnly: "is read-only (transaction_read_only is on)"
      case .unreachable(let why): why
      }
    }
  }

  /// How an operator sees the hosts.
  public struct Status: Sendable, Hashable {
    /// The host statements go to (`host:port`), nil while none is known.
    public var current: String?
    /// Times the chosen host changed to another since start.
    public var switches: Int
    /// Rounds of questions asked since start.
    public var rounds: Int
    /// Each host's newest answer (empty for a URL that is never asked).
    public var answers: [String: String]
  }

  public let url: DatabaseURL
  public let role: Role
  /// One pool per host, in the URL's order; run them (they are `Service`s) for as long as
  /// the hosts are used.
  public let clients: [PostgresClient]
  /// Whether hosts are asked at all (several hosts, or a `target_session_attrs`).
  public let asks: Bool
  /// How often the chosen host is asked whether it still has the role.
  public let recheck: Duration
  let logger: Logger

  private struct State {
    /// Index into `clients` of the chosen host; nil while none is known.
    var current: Int?
    /// The last host that was chosen (statements go there while a new one is looked for).
    var lastKnown: Int = 0
    var round: Task<[Answer], Never>?
    var switches = 0
    var rounds = 0
    var answers: [Answer?]
  }

  private let state: Mutex<State>
  /// Writes waiting for a round of ``confirmReplicated(on:within:)``'s questions.
  let confirmations = Mutex(ConfirmationQueue())

  /// Pools for every host of `url`; `role` is what the chosen host must be.
  public init(
    _ url: DatabaseURL, role: Role, recheck: Duration = .seconds(1), logger: Logger
  ) {
    self.url = url
    self.role = role
    self.recheck = recheck
    self.logger = logger
    self.clients = url.hosts.map {
      PostgresClient(configuration: url.clientConfiguration(for: $0), backgroundLogger: logger)
    }
    self.asks = url.hosts.count > 1 || url.targetSessionAttributes != .any
    self.state = Mutex(
      State(current: asks ? nil : 0, answers: Array(repeating: nil, count: url.hosts.count)))
  }

  /// One pool the caller made and runs, used as it is (never asked anything).
  public init(client: PostgresClient, logger: Logger) {
    self.url = DatabaseURL.placeholder
    self.role = .any
    self.logger = logger
    self.clients = [client]
    self.asks = false
    self.recheck = .seconds(1)
    self.state = Mutex(State(current: 0, answers: [nil]))
  }

  /// The pools a ledger uses for `url`: the host that accepts writes. A URL whose
  /// `target_session_attrs` asks for a standby cannot be the ledger's.
  public static func primary(_ url: DatabaseURL, logger: Logger) throws(EventStoreError)
    -> DatabaseHosts
  {
    DatabaseHosts(try url.checkedForWrites(), role: .primary, logger: logger)
  }

  /// The pools a read replica uses for `url`: a standby unless `target_session_attrs` says
  /// otherwise (`prefer-standby` falls back to any host; `read-write` reads the primary).
  public static func replica(_ url: DatabaseURL, logger: Logger) -> DatabaseHosts {
    let role: Role =
      switch url.targetSessionAttributes {
      case .any: url.hosts.count > 1 ? .standby : .any
      case .readOnly, .standby: .standby
      case .preferStandby: .preferStandby
      case .readWrite, .primary: .primary
      }
    return DatabaseHosts(url, role: role, logger: logger)
  }

  /// The chosen host's pool; while none is known, the last one chosen (its statements fail
  /// fast and are told apart by ``lost(_:)``'s callers).
  public var current: PostgresClient {
    clients[state.withLock { $0.current ?? $0.lastKnown }]
  }

  /// The chosen host (`host:port`), nil while none is known.
  public var currentHost: String? {
    state.withLock { $0.current }.map { url.hosts[$0].description }
  }

  public var status: Status {
    state.withLock { state in
      var answers: [String: String] = [:]
      for (index, answer) in state.answers.enumerated() {
        if let answer { answers[url.hosts[index].description] = answer.description }
      }
      return Status(
        current: state.current.map { url.hosts[$0].description }, switches: state.switches,
        rounds: state.rounds, answers: answers)
    }
  }

  /// Runs `body` with `hosts`' pools running for exactly as long (command-line tools, tests).
  package static func withRunning<Result: Sendable>(
    _ hosts: DatabaseHosts, _ body: @Sendable (DatabaseHosts) async throws -> Result
  ) async throws -> Result {
    try await withThrowingTaskGroup(of: Result?.self) { group in
      // Each pool's run() in a task of this group, started before the body leases.
      group.addTask {
        await hosts.run()
        return nil
      }
      defer { group.cancelAll() }
      return try await body(hosts)
    }
  }

  /// Runs every pool, and the recheck of the chosen host, until cancelled.
  public func run() async {
    await withDiscardingTaskGroup { group in
      for client in clients { group.addTask { await client.run() } }
      if asks { group.addTask { await self.watch() } }
    }
  }

  /// Asks the chosen host, through its pool, every ``recheck`` whether it still has the role;
  /// one that does not, or fails as a lost host does, is forgotten (the next statement finds
  /// the one that has it). Runs until cancelled (returns at once for a URL never asked); a
  /// program that runs the pools as services runs this beside them.
  public func watch() async {
    guard asks else { return }
    while !Task.isCancelled {
      do { try await Task.sleep(for: recheck) } catch { return }
      guard let index = state.withLock({ $0.current }) else { continue }
      let client = clients[index]
      let logger = self.logger
      let answer: Answer
      do {
        answer = try await withTimeout(.seconds(2)) {
          try await client.query(Self.question, logger: logger, reading: Self.answer)
        }
      } catch {
        if Task.isCancelled { return }
        if Self.losesHost(error) { lost(client) }
        continue
      }
      if !fits(answer) {
        logger.warning(
          "database host no longer has the role",
          metadata: ["host": "\(url.hosts[index])", "role": "\(role.rawValue)"])
        lost(client)
      }
    }
  }

  /// Whether a host that answered `answer` may stay the chosen one (a primary chosen for
  /// `prefer-standby` while no standby answered is asked about again: a standby may be back).
  private func fits(_ answer: Answer) -> Bool {
    switch role {
    case .primary: answer == .acceptsWrites
    case .standby, .preferStandby: answer == .standby
    case .any: true
    }
  }

  static let question =
    "SELECT pg_is_in_recovery(), current_setting('transaction_read_only') = 'on'" as PostgresQuery

  /// What a host's rows for ``question`` say it is.
  @Sendable static func answer(_ rows: StatementRows) async throws -> Answer {
    var answer = Answer.unreachable("answered nothing")
    for try await (recovery, readOnly) in rows.decode((Bool, Bool).self) {
      answer = recovery ? .standby : readOnly ? .readOnly : .acceptsWrites
    }
    return answer
  }

  /// Forgets the chosen host when `client` is its pool: the next ``located(before:)`` asks
  /// the hosts again. Nothing happens for a URL that is never asked.
  public func lost(_ client: PostgresClient) {
    guard asks, let index = clients.firstIndex(where: { $0 === client }) else { return }
    let forgot = state.withLock { state -> Bool in
      guard state.current == index else { return false }
      state.current = nil
      return true
    }
    if forgot {
      logger.warning(
        "database host lost; looking for the one that has the role",
        metadata: ["host": "\(url.hosts[index])", "role": "\(role.rawValue)"])
    }
  }

  /// Forgets the chosen host, whichever it is (a statement failed on the pool it took a
  /// moment ago; at worst the hosts are asked once more than needed).
  public func lostCurrent() {
    guard asks, let index = state.withLock({ $0.current }) else { return }
    lost(clients[index])
  }

  /// The chosen host's pool, asking the hosts (again and again, 200 ms apart) until one has
  /// the role; fails with `database_unavailable` naming each host's answer when none has it
  /// by `deadline`.
  public func located(before deadline: ContinuousClock.Instant) async throws(EventStoreError)
    -> PostgresClient
  {
    while true {
      if let index = state.withLock({ $0.current }) { return clients[index] }
      let answers = await round(deadline: deadline)
      if let index = state.withLock({ $0.current }) { return clients[index] }
      let now = ContinuousClock.now
      guard now + .milliseconds(200) < deadline else { throw noHost(answers) }
      try? await Task.sleep(for: .milliseconds(200))
      if Task.isCancelled {
        throw EventStoreError(.databaseUnavailable, "cancelled while looking for the database")
      }
    }
  }

  /// The same within `limit` from now.
  public func located(within limit: Duration) async throws(EventStoreError) -> PostgresClient {
    try await located(before: .now + limit)
  }

  private func noHost(_ answers: [Answer]) -> EventStoreError {
    let wanted =
      switch role {
      case .primary: "accepts writes"
      case .standby: "is a standby"
      case .preferStandby, .any: "answers"
      }
    let said = zip(url.hosts, answers).map { "\($0) \($1)" }.joined(separator: "; ")
    return EventStoreError(
      .databaseUnavailable,
      "no host of \(url.address) \(wanted): \(said). During a failover this passes once the "
        + "new primary is promoted; otherwise check the formation (pg_autoctl show state)")
  }

  /// One round of questions, shared by every caller waiting at the same time.
  private func round(deadline: ContinuousClock.Instant) async -> [Answer] {
    let task = state.withLock { state -> Task<[Answer], Never> in
      if let round = state.round { return round }
      let round = Task { await self.ask() }
      state.round = round
      return round
    }
    return await task.value
  }

  private func ask() async -> [Answer] {
    let answers = await withTaskGroup(of: (Int, Answer).self) { group in
      for (index, host) in url.hosts.enumerated() {
        group.addTask { (index, await self.ask(host)) }
      }
      var answers = [Answer](repeating: .unreachable("did not answer"), count: url.hosts.count)
      for await (index, answer) in group { answers[index] = answer }
      return answers
    }
    let chosen = choose(answers)
    state.withLock { state in
      state.rounds += 1
      state.answers = answers.map { $0 }
      state.round = nil
      if let chosen {
        if chosen != state.lastKnown { state.switches += 1 }
        state.current = chosen
        state.lastKnown = chosen
      }
    }
    if let chosen {
      logger.info(
        "database host located",
        metadata: ["host": "\(url.hosts[chosen])", "role": "\(role.rawValue)"])
    }
    return answers
  }

  /// The host with the role, in the URL's order; the last one chosen wins a tie (two hosts
  /// that both accept writes for a moment during a switch).
  private func choose(_ answers: [Answer]) -> Int? {
    let last = state.withLock { $0.lastKnown }
    func first(_ accepted: (Answer) -> Bool) -> Int? {
      if answers.indices.contains(last), accepted(answers[last]) { return last }
      return answers.firstIndex(where: accepted)
    }
    let answered: (Answer) -> Bool = {
      if case .unreachable = $0 { return false }
      return true
    }
    switch role {
    case .primary: return first { $0 == .acceptsWrites }
    case .standby: return first { $0 == .standby }
    case .preferStandby: return first { $0 == .standby } ?? first(answered)
    case .any: return first(answered)
    }
  }

  /// Asks one host on a connection of its own (a pool keeps retrying a dead host quietly;
  /// one connection says at once why it cannot connect).
  private func ask(_ host: DatabaseURL.Host) async -> Answer {
    let url = self.url
    let logger = self.logger
    do {
      return try await withTimeout(.seconds(2)) {
        var settings = PostgresConnection.Configuration(
          host: host.name, port: host.port, username: url.username, password: url.password,
          database: url.database, tls: try url.connectionTLS(for: host))
        settings.options.connectTimeout = .seconds(2)
        let connection = try await PostgresConnection.connect(
          configuration: settings, id: 0, logger: logger)
        do {
          let answer = try await connection.query(
            Self.question, logger: logger, reading: Self.answer)
          try? await connection.close()
          return answer
        } catch {
          try? await connection.close()
          throw error
        }
      }
    } catch {
      var single = url
      single.hosts = [host]
      let problem = DatabaseProblem.classify(error, url: single)
      return .unreachable(
        problem.map { Self.short($0) } ?? "failed (\(String(describing: type(of: error))))")
    }
  }
}
