import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import StoreLedgerCore

/// Why the database cannot be used, named by cause with the next step: a closed port, a role
/// PostgreSQL does not let in, a database that does not exist, a role without the privilege,
/// a server that does not answer. Found by opening one connection (PostgresNIO's pool keeps
/// retrying a failed connection, so a query alone only ever says "no answer in time").
public struct DatabaseProblem: Error, Hashable, Sendable, CustomStringConvertible {
  public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// Nothing accepts connections at the address (or the host name does not resolve).
    public static let connectionRefused = Code(rawValue: "database_connection_refused")
    /// PostgreSQL refused the role: wrong or missing password, or no `pg_hba.conf` entry.
    public static let authenticationFailed = Code(rawValue: "database_authentication_failed")
    /// The server has no database of that name.
    public static let databaseMissing = Code(rawValue: "database_missing")
    /// The role may not do what was asked (SQLSTATE 42501).
    public static let permissionDenied = Code(rawValue: "database_permission_denied")
    /// The server did not answer in time.
    public static let timeout = Code(rawValue: "database_timeout")
    /// None of the URL's hosts accepts writes (all standbys, or the others unreachable).
    public static let noPrimary = Code(rawValue: "database_no_primary")
    /// TLS as `sslmode` asks could not be set up: the server offers none, its certificate
    /// does not chain to `sslrootcert` or does not name the host, or `sslrootcert` cannot be
    /// read.
    public static let tlsFailed = Code(rawValue: "database_tls_failed")
  }

  public let code: Code
  /// The cause and the next step, naming the address and role (never the password).
  public let message: String

  public init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  public var description: String { "\(code): \(message)" }

  /// Opens one connection to `url` and runs `SELECT 1`; nil when that works.
  public static func diagnose(
    _ url: DatabaseURL, timeout: Duration = .seconds(5), logger: Logger
  ) async -> DatabaseProblem? {
    if url.hosts.count > 1 || url.targetSessionAttributes != .any {
      return await diagnoseHosts(url, timeout: timeout, logger: logger)
    }
    do {
      // TLS as the pool uses it (`sslmode`, `sslrootcert`).
      var settings = PostgresConnection.Configuration(
        host: url.host, port: url.port, username: url.username, password: url.password,
        database: url.database, tls: try url.connectionTLS(for: url.hosts[0]))
      settings.options.connectTimeout = .seconds(Int64(timeout.components.seconds))
      let configuration = settings
      return try await withTimeout(timeout) {
        let connection = try await PostgresConnection.connect(
          configuration: configuration, id: 1, logger: logger)
        do {
          try await connection.execute("SELECT 1", logger: logger)
        } catch {
          try? await connection.close()
          throw error
        }
        try? await connection.close()
        return nil
      }
    } catch {
      return classify(error, url: url)
        ?? DatabaseProblem(
          .connectionRefused,
          "could not connect to PostgreSQL at \(url.host):\(url.port) (\(String(describing: type(of: error)))); "
            + "check the address in --database-url and that the server runs")
    }
  }

  /// A URL naming several hosts: one of them must accept writes. When none does, the one
  /// problem every host shares (all refuse the role, say) is said as for one host; otherwise
  /// each host's answer.
  private static func diagnoseHosts(
    _ url: DatabaseURL, timeout: Duration, logger: Logger
  ) async -> DatabaseProblem? {
    let hosts: DatabaseHosts
    do { hosts = try DatabaseHosts.primary(url, logger: logger) } catch {
      return DatabaseProblem(.noPrimary, error.message)
    }
    do {
      _ = try await hosts.located(within: timeout)
      return nil
    } catch {
      var problems: [DatabaseProblem?] = []
      for host in url.hosts {
        var single = url
        single.hosts = [host]
        single.targetSessionAttributes = .any
        problems.append(await diagnose(single, timeout: .seconds(2), logger: logger))
      }
      if let first = problems.first ?? nil, problems.allSatisfy({ $0?.code == first.code }),
        first.code != .connectionRefused
      {
        return first
      }
      return DatabaseProblem(.noPrimary, error.message)
    }
  }

  /// The problem `error` (thrown by PostgresNIO or a timeout) shows, if it is one of these.
  public static func classify(_ error: any Error, url: DatabaseURL) -> DatabaseProblem? {
    let address = "\(url.host):\(url.port)"
    if error is TimeoutError {
      return DatabaseProblem(
        .timeout,
        "PostgreSQL at \(address) did not answer in time; check that the host is reachable "
          + "(a firewall that drops packets looks like this) and that the server is not overloaded")
    }
    if let tls = classifyTLS(error, url: url) { return tls }
    if let psql = error as? PSQLError {
      if let state = psql.serverInfo?[.sqlState] {
        // PostgreSQL's own words for a role it does not know (they quote no data).
        let unknownRole =
          state == "28000" && psql.serverInfo?[.message]?.contains("does not exist") == true
        return classify(sqlState: unknownRole ? "28000/role" : state, url: url)
      }
      if psql.code == .connectionError || psql.code == .serverClosedConnection,
        let underlying = psql.underlying
      {
        return classify(underlying, url: url)
      }
    }
    if let connect = error as? NIOConnectionError {
      if connect.dnsAAAAError != nil || connect.dnsAError != nil, connect.connectionErrors.isEmpty {
        return DatabaseProblem(
          .connectionRefused,
          "the host \(url.host) of --database-url does not resolve; check its spelling")
      }
      return refused(address)
    }
    if let io = error as? IOError, io.errnoCode == ECONNREFUSED { return refused(address) }
    if let channel = error as? ChannelError, case .connectTimeout = channel {
      return classify(TimeoutError(limit: .seconds(5)), url: url)
    }
    return nil
  }

  /// The TLS failures, each with what to change.
  private static func classifyTLS(_ error: any Error, url: DatabaseURL) -> DatabaseProblem? {
    let address = "\(url.host):\(url.port)"
    let mode = url.sslMode?.rawValue ?? "prefer"
    let roots = url.sslRootCertificate.map { "sslrootcert (\($0))" } ?? "the system's trust roots"
    if let psql = error as? PSQLError {
      if psql.code == .sslUnsupported {
        return DatabaseProblem(
          .tlsFailed,
          "PostgreSQL at \(address) does not offer TLS and sslmode=\(mode) requires it; turn "
            + "it on in the server's postgresql.conf (ssl = on, ssl_cert_file, ssl_key_file) "
            + "or, on a trusted network only, use sslmode=prefer")
      }
      return psql.underlying.flatMap { classifyTLS($0, url: url) }
    }
    if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
      return DatabaseProblem(
        .tlsFailed,
        "the certificate of PostgreSQL at \(address) does not name \(url.host) "
          + "(sslmode=verify-full checks the name); connect by a name the certificate lists, "
          + "or use sslmode=verify-ca to check the chain alone")
    }
    let unreadable = DatabaseProblem(
      .tlsFailed,
      "sslrootcert \(url.sslRootCertificate ?? "") cannot be read as PEM certificates; give "
        + "the path of the file holding the certificate of the CA that signed the server's")
    // BoringSSL's own error, unwrapped, comes from loading the trust roots.
    if error is BoringSSLError, url.sslRootCertificate != nil { return unreadable }
    guard let ssl = error as? NIOSSLError else { return nil }
    switch ssl {
    case .noSuchFilesystemObject, .failedToLoadCertificate:
      return unreadable
    case .handshakeFailed(let reason) where "\(reason)".contains("CERTIFICATE_VERIFY_FAILED"):
      return DatabaseProblem(
        .tlsFailed,
        "the certificate of PostgreSQL at \(address) does not chain to \(roots) "
          + "(sslmode=\(mode)); give sslrootcert the certificate of the CA that signed the "
          + "server's")
    default:
      return DatabaseProblem(
        .tlsFailed,
        "TLS with PostgreSQL at \(address) failed (\(ssl)); check the server's ssl settings "
          + "and sslmode=\(mode)")
    }
  }

  private static func refused(_ address: String) -> DatabaseProblem {
    DatabaseProblem(
      .connectionRefused,
      "nothing accepts connections at \(address); is PostgreSQL running there (pg_ctl status, "
        + "systemctl status postgresql) and listening on that address and port?")
  }

  /// The SQLSTATEs of the server's refusals.
  public static func classify(sqlState: String, url: DatabaseURL) -> DatabaseProblem? {
    let role = url.username
    switch sqlState {
    case "28000/role":
      return DatabaseProblem(
        .authenticationFailed,
        "PostgreSQL at \(url.host):\(url.port) has no role \(role); fix the user in the URL, or "
          + "create the role (storeledger migrate creates storeledger_owner and "
          + "storeledger_writer; give them passwords with ALTER ROLE … PASSWORD '…')")
    case "28P01", "28000":
      return DatabaseProblem(
        .authenticationFailed,
        "PostgreSQL at \(url.host):\(url.port) refused the role \(role): the password is wrong "
          + "or missing, or pg_hba.conf does not let it in. Give the role a password as its "
          + "owner or a superuser (psql -c \"ALTER ROLE \(role) PASSWORD '…'\") and put it in "
          + "the URL (postgres://\(role):PASSWORD@\(url.host):\(url.port)/\(url.database ?? ""))")
    case "3D000":
      let name = url.database ?? role
      return DatabaseProblem(
        .databaseMissing,
        "PostgreSQL at \(url.host):\(url.port) has no database \(name); create it "
          + "(createdb \(name), or CREATE DATABASE \(name)) or fix the name in --database-url")
    case "42501":
      return DatabaseProblem(
        .permissionDenied,
        "the role \(role) may not do this. The schema is created and changed by its owner: "
          + "run `storeledger migrate` with the owner role (storeledger_owner, or a superuser); "
          + "serve and the other commands use the writer role (storeledger_writer)")
    default:
      return nil
    }
  }
}
