import Foundation
import Logging
import PostgresNIO
import StoreLedgerPostgres

#if canImport(Glibc)
  import Glibc
#endif

/// The pg_auto_failover formation `scripts/test` starts (`scripts/ha`): its URL naming both
/// data nodes, and the faults a test injects into it through `scripts/ha`.
public struct FailoverFormation: Sendable {
  /// `postgres://postgres@h1:p1,h2:p2/ledger?target_session_attrs=read-write&…`.
  public let url: DatabaseURL
  let directory: String

  /// The formation of STORELEDGER_TEST_HA_URL and STORELEDGER_TEST_HA_DIR, if started.
  public static let current: FailoverFormation? = {
    let environment = ProcessInfo.processInfo.environment
    guard let text = environment["STORELEDGER_TEST_HA_URL"], !text.isEmpty,
      let directory = environment["STORELEDGER_TEST_HA_DIR"], !directory.isEmpty,
      let url = try? DatabaseURL(text)
    else { return nil }
    return FailoverFormation(url: url, directory: directory)
  }()

  /// Whether the failover tests run: with a formation, and under CI=true always (a missing
  /// formation is then a failure, not a skip).
  public static var shouldRun: Bool {
    current != nil || ProcessInfo.processInfo.environment["CI"] == "true"
  }

  /// The faults to inject: all, or those STORELEDGER_TEST_FAULTS names (a comma list), to
  /// run one while working on it.
  public static func faults<Fault: RawRepresentable>(_ all: [Fault]) -> [Fault]
  where Fault.RawValue == String {
    guard let names = ProcessInfo.processInfo.environment["STORELEDGER_TEST_FAULTS"] else {
      return all
    }
    let chosen = Set(names.split(separator: ",").map(String.init))
    return all.filter { chosen.contains($0.rawValue) }
  }

  static let repository = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// Runs `scripts/ha <arguments>` and returns what it printed.
  ///
  /// Spawned and reaped here (posix_spawn, waitpid) rather than with Foundation's `Process`:
  /// in a process that also runs servers, `Process.waitUntilExit()` sometimes never saw the
  /// script end (it stayed a zombie), and a test hung.
  @discardableResult
  public func ha(_ arguments: String...) async throws -> String {
    let folder = FileManager.default.temporaryDirectory
    let output = folder.appendingPathComponent("ha-\(UUID().uuidString).out").path
    let errors = folder.appendingPathComponent("ha-\(UUID().uuidString).err").path
    defer {
      try? FileManager.default.removeItem(atPath: output)
      try? FileManager.default.removeItem(atPath: errors)
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let script = Self.repository.appendingPathComponent("scripts/ha").path
    var environment = ProcessInfo.processInfo.environment
    environment["STORELEDGER_TEST_HA_DIR"] = directory
    let argv = ([script] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      for pointer in argv { free(pointer) }
      for pointer in envp { free(pointer) }
    }
    // Every signal with its default disposition and none blocked: this process ignores
    // SIGTERM (its servers handle it), and the keepers the script starts would inherit that.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var all = sigset_t()
    sigfillset(&all)
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, script, &actions, &attributes, argv, envp)
    guard spawned == 0 else { throw FormationError("scripts/ha could not start (\(spawned))") }
    var status: Int32 = 0
    while true {
      let reaped = waitpid(pid, &status, WNOHANG)
      if reaped == pid { break }
      if reaped < 0 { throw FormationError("waiting for scripts/ha failed (\(errno))") }
      try await Task.sleep(for: .milliseconds(20))
    }
    let printed = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    let complaint = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
    // Exited normally with status 0 (the wait status's low 7 bits are the signal, if any).
    guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
      throw FormationError(
        "scripts/ha \(arguments.joined(separator: " ")) ended with wait status \(status): "
          + complaint)
    }
    return printed.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// Each node's name, reported state and assigned state.
  public func states() async throws -> [(node: String, reported: String, assigned: String)] {
    try await ha("state").split(separator: "\n").compactMap { line in
      let fields = line.split(separator: " ").map(String.init)
      return fields.count == 3 ? (fields[0], fields[1], fields[2]) : nil
    }
  }

  /// Waits (polling the monitor) until `condition` holds of the states, at most `limit`.
  public func wait(
    for what: String, within limit: Duration = .seconds(120),
    _ condition: ([(node: String, reported: String, assigned: String)]) -> Bool
  ) async throws {
    let deadline = ContinuousClock.now + limit
    var last: [(node: String, reported: String, assigned: String)] = []
    while ContinuousClock.now < deadline {
      last = (try? await states()) ?? []
      if condition(last) { return }
      try await Task.sleep(for: .milliseconds(250))
    }
    throw FormationError("the formation did not reach \(what) within \(limit): \(last)")
  }

  /// A new database on the formation, migrated, and its URL (every host).
  public func createDatabase(_ name: String, logger: Logger) async throws -> DatabaseURL {
    _ = try await PostgresClient.withRunningClient(url.with(database: "postgres"), logger: logger) {
      client in
      try await client.execute(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
    }
    let database = url.with(database: name)
    try await PostgresClient.withRunningClient(database, logger: logger) { client in
      _ = try await SchemaMigrator(client: client, logger: logger).migrate()
    }
    return database
  }

  public func dropDatabase(_ name: String, logger: Logger) async throws {
    _ = try await PostgresClient.withRunningClient(url.with(database: "postgres"), logger: logger) {
      client in
      try await client.execute(
        PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: logger)
    }
  }

  public struct FormationError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
  }
}
