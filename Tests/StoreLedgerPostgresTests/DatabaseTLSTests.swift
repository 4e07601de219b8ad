import Foundation
import PostgresNIO
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// `sslmode` and `sslrootcert` against a real PostgreSQL that offers TLS with a certificate
/// for `localhost` from a CA of the suite's own: what each mode does on the wire (PostgreSQL's
/// `pg_stat_ssl` says whether the session is encrypted), and each way it fails, said by cause.
@Suite(.enabled(if: TestTLS.shouldRun)) struct DatabaseTLSTests {
  /// The test cluster by the name its certificate carries, with the given query.
  static func url(_ query: String, host: String = "localhost") throws -> DatabaseURL {
    let server = try #require(TestDatabase.serverURL, "scripts/test starts the cluster")
    return try DatabaseURL("postgres://postgres@\(host):\(server.port)/postgres?\(query)")
  }

  static var root: String { TestTLS.root ?? "/missing" }

  /// Whether the session `url`'s pool opens is encrypted, and with which protocol.
  static func session(_ url: DatabaseURL) async throws -> (Bool, String?) {
    try await PostgresClient.withRunningClient(url, logger: TestDatabase.logger) { client in
      try await client.query(
        "SELECT ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
        logger: TestDatabase.logger
      ) { rows in
        for try await (ssl, version) in rows.decode((Bool, String?).self) { return (ssl, version) }
        return (false, nil)
      }
    }
  }

  @Test func eachModeDoesWhatLibpqDoes() async throws {
    let root = Self.root
    #expect(try await Self.session(Self.url("sslmode=disable")).0 == false)
    #expect(try await Self.session(Self.url("sslmode=prefer")).0 == true)
    #expect(try await Self.session(Self.url("sslmode=require")).0 == true)
    let full = try await Self.session(Self.url("sslmode=verify-full&sslrootcert=\(root)"))
    #expect(full.0 == true)
    #expect(full.1?.hasPrefix("TLSv1.") == true)
    // verify-ca checks the chain and not the name: through the address it connects.
    #expect(
      try await Self.session(Self.url("sslmode=verify-ca&sslrootcert=\(root)", host: "127.0.0.1"))
        .0 == true)
    // Without sslmode, loopback stays plain, as before.
    #expect(try await Self.session(Self.url("")).0 == false)
    // Several hosts: the one that accepts writes is asked and used over TLS.
    #expect(
      try await Self.session(
        Self.url(
          "sslmode=verify-full&sslrootcert=\(root)&target_session_attrs=read-write")
      ).0 == true)
  }

  /// Each failure is said by cause (`database_tls_failed`) with what to change, at once.
  @Test func failuresAreSaidByCause() async throws {
    let other = try #require(TestTLS.otherRoot)
    let notPEM = FileManager.default.temporaryDirectory.appendingPathComponent(
      "storeledger-not-a-certificate-\(UUID().uuidString).pem")
    try Data("not a certificate\n".utf8).write(to: notPEM)
    defer { try? FileManager.default.removeItem(at: notPEM) }
    for (query, host, words) in [
      (
        "sslmode=verify-full&sslrootcert=\(Self.root)", "127.0.0.1",
        ["does not name 127.0.0.1", "verify-ca"]
      ),
      (
        "sslmode=verify-ca&sslrootcert=\(other)", "localhost",
        ["does not chain to sslrootcert (\(other))", "CA that signed"]
      ),
      ("sslmode=verify-full", "localhost", ["does not chain to the system's trust roots"]),
      (
        "sslmode=verify-full&sslrootcert=/no/such/ca.pem", "localhost",
        ["sslrootcert /no/such/ca.pem cannot be read"]
      ),
      ("sslmode=require&sslrootcert=\(notPEM.path)", "localhost", ["cannot be read"]),
    ] {
      let url = try Self.url(query, host: host)
      let started = ContinuousClock.now
      let problem = await DatabaseProblem.diagnose(url, logger: TestDatabase.logger)
      #expect(problem?.code == .tlsFailed, "\(query) via \(host): \(String(describing: problem))")
      for word in words {
        #expect(problem?.message.contains(word) == true, "\(String(describing: problem))")
      }
      #expect(ContinuousClock.now - started < .seconds(3))
    }
  }

  /// A server without TLS (the suite's streaming replica runs without) is said as such when
  /// `sslmode` requires TLS, and used in plain text when it only prefers it.
  @Test(.enabled(if: TestReplica.shouldRun)) func aServerWithoutTLS() async throws {
    let replica = try #require(TestReplica.serverURL, "scripts/test starts a streaming replica")
    var url = replica
    url.sslMode = .require
    let problem = await DatabaseProblem.diagnose(url, logger: TestDatabase.logger)
    #expect(problem?.code == .tlsFailed)
    #expect(problem?.message.contains("does not offer TLS and sslmode=require") == true)
    url.sslMode = .prefer
    #expect(await DatabaseProblem.diagnose(url, logger: TestDatabase.logger) == nil)
    #expect(try await Self.session(url).0 == false)
  }

  /// Asking several hosts for the primary names the TLS failure of each.
  @Test func aFormationURLNamesEachHostsTLSFailure() async throws {
    let server = try #require(TestDatabase.serverURL)
    let other = try #require(TestTLS.otherRoot)
    let url = try DatabaseURL(
      "postgres://postgres@localhost:\(server.port),127.0.0.1:\(server.port)/postgres"
        + "?target_session_attrs=read-write&sslmode=verify-ca&sslrootcert=\(other)")
    let problem = await DatabaseProblem.diagnose(url, logger: TestDatabase.logger)
    #expect(problem?.code == .tlsFailed, "\(String(describing: problem))")
    #expect(problem?.message.contains("does not chain") == true)
  }
}
