import Foundation
import Logging
import PostgresNIO
import StoreLedgerPostgres

#if canImport(Glibc)
  import Glibc
#endif

/// The streaming replica of the test cluster that `scripts/test` starts beside the primary
/// (`pg_basebackup -R`): its URL, and stopping, starting, pausing and resuming it for the
/// tests of read replicas. Under `CI=true` a missing replica fails those tests.
public enum TestReplica {
  static let environment = ProcessInfo.processInfo.environment

  public static let serverURL: DatabaseURL? = environment["STORELEDGER_TEST_REPLICA_URL"]
    .flatMap { try? DatabaseURL($0) }

  public static let shouldRun = serverURL != nil || environment["CI"] == "true"

  struct Unavailable: Error, CustomStringConvertible {
    var description: String {
      "no test replica: run scripts/test, which starts one and sets STORELEDGER_TEST_REPLICA_URL"
    }
  }

  /// The replica of `database` as the engine's writer role, once the replica has replayed the
  /// database's creation and migration.
  public static func url(of database: TestDatabase) async throws -> DatabaseURL {
    guard let server = serverURL else { throw Unavailable() }
    let url = server.with(database: database.name).with(username: "storeledger_writer")
    try await waitUntilReplayed(database, on: url)
    return url
  }

  /// Waits until the replica has replayed everything the primary has written so far.
  public static func waitUntilReplayed(_ database: TestDatabase, on url: DatabaseURL? = nil)
    async throws
  {
    guard let server = serverURL else { throw Unavailable() }
    let target = try await database.asAdmin { client in
      try await text("SELECT pg_current_wal_insert_lsn()::text", on: client)
    }
    let replica = url ?? server.with(database: database.name)
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
      let caughtUp = try? await PostgresClient.withRunningClient(
        replica, logger: TestDatabase.logger
      ) { client in
        try await text(
          "SELECT (pg_last_wal_replay_lsn() >= '\(target)'::pg_lsn)::text", on: client)
      }
      if caughtUp == "true" { return }
      try await Task.sleep(for: .milliseconds(50))
    }
    throw Unavailable()
  }

  /// Stops replaying the primary's WAL (the replica keeps answering, from the past).
  public static func pauseReplay() async throws {
    try await onReplica("SELECT pg_wal_replay_pause()::text")
  }

  public static func resumeReplay() async throws {
    try await onReplica("SELECT pg_wal_replay_resume()::text")
  }

  /// Stops the replica's server (fast: its connections are cut).
  public static func stop() throws {
    try pgCtl(["-m", "fast", "-w", "stop"])
  }

  /// Starts it again; it resumes following the primary.
  public static func start() throws {
    try pgCtl(["-l", "\(try dataDirectory())/../replica.log", "-w", "start"])
  }

  private static func onReplica(_ sql: String) async throws {
    guard let server = serverURL else { throw Unavailable() }
    _ = try await PostgresClient.withRunningClient(server, logger: TestDatabase.logger) {
      client in try await text(sql, on: client)
    }
  }

  private static func dataDirectory() throws -> String {
    guard let directory = environment["STORELEDGER_TEST_REPLICA_DATA"] else { throw Unavailable() }
    return directory
  }

  private static func pgCtl(_ arguments: [String]) throws {
    guard let bin = environment["STORELEDGER_TEST_POSTGRES_BIN"] else { throw Unavailable() }
    let command = ["\(bin)/pg_ctl", "-D", try dataDirectory()] + arguments
    // PostgreSQL refuses to run as root: scripts/test runs the cluster as postgres then.
    let status = try spawnAndWait(
      getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] + command : command)
    guard status == 0 else { throw PgCtlFailed(arguments: arguments, status: status) }
  }

  /// Runs `argv` with its output discarded and returns its exit status. Not Foundation's
  /// Process: the server pg_ctl starts keeps running after it, and Process then never
  /// noticed pg_ctl's exit.
  private static func spawnAndWait(_ argv: [String]) throws -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let arguments = argv.map { strdup($0) } + [nil]
    defer { arguments.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, argv[0], &actions, nil, arguments, environ)
    guard spawned == 0 else { throw PgCtlFailed(arguments: argv, status: spawned) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1, errno == EINTR {}
    return (status >> 8) & 0xFF
  }

  struct PgCtlFailed: Error, CustomStringConvertible {
    var arguments: [String]
    var status: Int32
    var description: String { "pg_ctl \(arguments.joined(separator: " ")) exited \(status)" }
  }

  private static func text(_ sql: String, on client: PostgresClient) async throws -> String {
    try await client.query(PostgresQuery(unsafeSQL: sql), logger: TestDatabase.logger) { rows in
      var text = ""
      for try await value in rows.decode(String.self) { text = value }
      return text
    }
  }
}
