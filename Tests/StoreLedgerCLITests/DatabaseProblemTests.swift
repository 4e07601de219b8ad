import Foundation
import PostgresNIO
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A database that cannot be used is named by its cause, with the next step and its own code,
/// at once: against the test cluster in each state (nothing on the port, a wrong password, a
/// role that does not exist, no such database, the writer role migrating, a server that
/// accepts the connection and never answers).
@Suite(.enabled(if: TestDatabase.shouldRun), .serialized) struct DatabaseProblemTests {
  static let token = "00000000-0000-4000-8000-0000000000d1"

  func entitlements(_ url: String) throws -> CommandLineRunner.Result {
    try CommandLineRunner.run(
      ["entitlements", Self.token, "--database-url", url, "--bundle-id", "com.example.app"])
  }

  func expect(
    _ result: CommandLineRunner.Result, _ code: String, _ words: [String],
    within seconds: Double, started: ContinuousClock.Instant
  ) {
    let elapsed = ContinuousClock.now - started
    #expect(result.status == 1, "\(result.standardError)")
    #expect(result.standardError.contains(code), "\(result.standardError)")
    for word in words { #expect(result.standardError.contains(word), "\(result.standardError)") }
    #expect(elapsed < .seconds(seconds), "said after \(elapsed)")
    #expect(!result.standardError.contains("wrong-secret"), "never the password")
  }

  @Test func nothingListeningIsConnectionRefused() throws {
    let port = try Self.closedPort()
    let started = ContinuousClock.now
    expect(
      try entitlements("postgres://postgres@127.0.0.1:\(port)/postgres"),
      "database_connection_refused", ["127.0.0.1:\(port)", "is PostgreSQL running"], within: 4,
      started: started)
  }

  @Test func aWrongPasswordOrAnUnknownRoleIsAuthenticationFailed() async throws {
    let server = try #require(TestDatabase.serverURL)
    _ = try await PostgresClient.withRunningClient(server, logger: TestDatabase.logger) { client in
      try await client.execute(
        PostgresQuery(
          unsafeSQL: """
            DO $$ BEGIN
              IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'storeledger_password_test') THEN
                CREATE ROLE storeledger_password_test LOGIN PASSWORD 'right-secret';
              END IF;
            END $$
            """), logger: TestDatabase.logger)
    }
    var started = ContinuousClock.now
    expect(
      try entitlements(
        "postgres://storeledger_password_test:wrong-secret@\(server.host):\(server.port)/postgres"),
      "database_authentication_failed", ["storeledger_password_test", "ALTER ROLE"], within: 4,
      started: started)
    started = ContinuousClock.now
    expect(
      try entitlements("postgres://no_such_role_here@\(server.host):\(server.port)/postgres"),
      "database_authentication_failed", ["no_such_role_here", "has no role"], within: 4,
      started: started)
  }

  @Test func aMissingDatabaseIsNamed() throws {
    let server = try #require(TestDatabase.serverURL)
    let started = ContinuousClock.now
    expect(
      try entitlements("postgres://postgres@\(server.host):\(server.port)/no_such_database_x"),
      "database_missing", ["no_such_database_x", "createdb"], within: 4, started: started)
  }

  @Test func migratingAsTheWriterIsPermissionDeniedAndNamesTheOwner() async throws {
    try await TestDatabase.withMigrated(to: Array(SchemaMigration.all.prefix(1))) { database in
      let result = try CommandLineRunner.run(
        ["migrate", "--database-url", database.writerURL.description])
      #expect(result.status == 1, "\(result.standardOutput)")
      #expect(
        result.standardError.contains("database_permission_denied"), "\(result.standardError)")
      #expect(result.standardError.contains("storeledger_writer"))
      #expect(result.standardError.contains("owner role"))
    }
  }

  @Test func aServerThatNeverAnswersIsATimeout() throws {
    let (socket, port) = try Self.silentListener()
    defer { close(socket) }
    let started = ContinuousClock.now
    expect(
      try entitlements("postgres://postgres@127.0.0.1:\(port)/postgres"), "database_timeout",
      ["127.0.0.1:\(port)", "did not answer"], within: 9, started: started)
  }

  /// A port nothing listens on: bound, then closed.
  /// A URL naming hosts of which none accepts writes (a standby and a closed port) is said
  /// at once, naming each host and what it answered; nothing is written.
  @Test(.enabled(if: TestReplica.shouldRun)) func noHostThatAcceptsWritesIsNamedPerHost() throws {
    let replica = try #require(TestReplica.serverURL, "scripts/test starts a streaming replica")
    let port = try Self.closedPort()
    let started = ContinuousClock.now
    expect(
      try entitlements(
        "postgres://postgres@\(replica.host):\(replica.port),127.0.0.1:\(port)/postgres"
          + "?target_session_attrs=read-write"),
      "database_no_primary",
      [
        "\(replica.host):\(replica.port) is a standby", "127.0.0.1:\(port) refused the connection",
        "pg_autoctl show state",
      ], within: 15, started: started)
  }

  /// A command over TLS as the URL asks: verified by name it works; a certificate from
  /// another CA is said at once, by cause, and nothing is read.
  @Test(.enabled(if: TestTLS.shouldRun)) func tlsIsUsedAsTheURLAsksAndItsFailureNamed()
    async throws
  {
    let root = try #require(TestTLS.root, "scripts/test starts the cluster with TLS")
    let other = try #require(TestTLS.otherRoot)
    try await TestDatabase.withMigrated { database in
      var url = database.writerURL
      url.hosts = [DatabaseURL.Host(name: "localhost", port: url.port)]
      url.sslMode = .verifyFull
      url.sslRootCertificate = root
      let result = try CommandLineRunner.run([
        "entitlements", Self.token, "--database-url", url.description, "--bundle-id",
        "com.example.app", "--app-apple-id", "1234567890",
      ])
      #expect(result.status == 0, "\(result.standardError)")
      #expect(result.standardError.isEmpty, "\(result.standardError)")
      #expect(result.standardOutput.hasPrefix("\(Self.token) at "), "\(result.standardOutput)")
      url.sslRootCertificate = other
      let started = ContinuousClock.now
      expect(
        try entitlements(url.description), "database_tls_failed",
        ["localhost:\(url.port)", "does not chain to sslrootcert (\(other))"], within: 4,
        started: started)
    }
  }

  /// libpq's other target_session_attrs values and typos are usage errors before any
  /// connection.
  @Test(arguments: [
    ("target_session_attrs=standby", "asks for a standby"),
    ("target_session_attrs=read_write", "target_session_attrs is one of"),
    ("sslmode=verify", "sslmode is one of"),
  ])
  func badConnectionParametersAreUsageErrors(_ query: String, _ words: String) throws {
    let result = try entitlements("postgres://postgres@127.0.0.1:1,127.0.0.1:2/postgres?\(query)")
    #expect(result.status == 2, "\(result.standardError)")
    #expect(result.standardError.contains(words), "\(result.standardError)")
  }

  static func closedPort() throws -> Int {
    let (socket, port) = try silentListener()
    close(socket)
    return port
  }

  /// A socket that accepts connections (the kernel completes them) and never says a word.
  static func silentListener() throws -> (Int32, Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    }
    guard bound == 0, listen(fd, 8) == 0 else { throw CocoaError(.fileNoSuchFile) }
    let named = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    guard named == 0 else { throw CocoaError(.fileNoSuchFile) }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
  }
}
