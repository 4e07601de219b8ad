import Foundation
import NIOSSL
import PostgresNIO
import StoreLedgerCore

/// A `postgres://user:password@host:port/database` URL, as DATABASE_URL holds it, or one
/// naming several hosts as libpq writes them and `pg_autoctl show uri` prints them:
/// `postgres://user@h1:p1,h2:p2/database?target_session_attrs=read-write&sslmode=prefer`.
///
/// With several hosts, StoreLedger keeps a pool to each and works on the one whose role
/// `target_session_attrs` asks for (``DatabaseHosts``). Query parameters it understands:
/// `target_session_attrs`, `sslmode` and `sslrootcert`; others (`application_name`,
/// `connect_timeout`, …) are accepted and have no effect.
public struct DatabaseURL: Sendable, Hashable, CustomStringConvertible {
  /// One host of the URL.
  public struct Host: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var port: Int

    public init(name: String, port: Int = 5432) {
      self.name = name
      self.port = port
    }

    /// `host:port` (an IPv6 address in brackets).
    public var description: String {
      name.contains(":") ? "[\(name)]:\(port)" : "\(name):\(port)"
    }

    /// Whether the host is this machine.
    public var isLoopback: Bool { ["127.0.0.1", "localhost", "::1"].contains(name) }
  }

  /// libpq's `target_session_attrs`: which of the hosts a session should be on.
  public enum TargetSessionAttributes: String, Sendable, Hashable, CaseIterable {
    /// The first host that answers.
    case any
    /// A host that accepts writes (`transaction_read_only` off).
    case readWrite = "read-write"
    /// A host that accepts no writes.
    case readOnly = "read-only"
    /// A host not in recovery.
    case primary
    /// A host in recovery (a standby).
    case standby
    /// A standby when one answers, else any host.
    case preferStandby = "prefer-standby"
  }

  /// libpq's `sslmode`.
  public enum SSLMode: String, Sendable, Hashable, CaseIterable {
    case disable, allow, prefer, require
    case verifyCA = "verify-ca"
    case verifyFull = "verify-full"
  }

  /// The hosts in the URL's order (at least one).
  public var hosts: [Host]
  public var username: String
  public var password: String?
  public var database: String?
  public var targetSessionAttributes: TargetSessionAttributes
  /// Nil: TLS off on loopback hosts and preferred elsewhere.
  public var sslMode: SSLMode?
  /// A PEM file of the certificates a server's must chain to (`sslrootcert`).
  public var sslRootCertificate: String?
  /// How many connections each host's pool may open; nil: PostgresNIO's default. Not part of
  /// the URL's text (libpq has no such parameter): set by the program that opens the pools.
  public var maximumConnections: Int?

  /// The first host's name.
  public var host: String {
    get { hosts[0].name }
    set { hosts[0].name = newValue }
  }

  /// The first host's port.
  public var port: Int {
    get { hosts[0].port }
    set { hosts[0].port = newValue }
  }

  /// Parses `text`; a URL without a user signs in as `PGUSER`, else as the system user, as
  /// libpq does.
  public init(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment)
    throws(EventStoreError)
  {
    let shape = "a database URL looks like postgres://user:password@host:5432/database"
    var rest = Substring(text)
    guard let schemeEnd = rest.range(of: "://"),
      ["postgres", "postgresql"].contains(rest[..<schemeEnd.lowerBound].lowercased())
    else { throw EventStoreError(.invalidConfiguration, shape) }
    rest = rest[schemeEnd.upperBound...]
    var query: Substring = ""
    if let mark = rest.firstIndex(of: "?") {
      query = rest[rest.index(after: mark)...]
      rest = rest[..<mark]
    }
    var path: Substring = ""
    if let slash = rest.firstIndex(of: "/") {
      path = rest[rest.index(after: slash)...]
      rest = rest[..<slash]
    }
    var user: String?
    if let at = rest.lastIndex(of: "@") {
      let userInfo = rest[..<at]
      rest = rest[rest.index(after: at)...]
      if let colon = userInfo.firstIndex(of: ":") {
        user = String(userInfo[..<colon]).removingPercentEncoding
        password = String(userInfo[userInfo.index(after: colon)...]).removingPercentEncoding
      } else {
        user = String(userInfo).removingPercentEncoding
      }
    }
    hosts = try rest.split(separator: ",", omittingEmptySubsequences: false).map {
      (text) throws(EventStoreError) in try Self.host(text, shape: shape)
    }
    guard
      let name = user.flatMap({ $0.isEmpty ? nil : $0 })
        ?? environment["PGUSER"].flatMap({ $0.isEmpty ? nil : $0 })
        ?? Self.systemUser()
    else { throw EventStoreError(.invalidConfiguration, shape) }
    username = name
    let database = String(path).removingPercentEncoding ?? String(path)
    self.database = database.isEmpty ? nil : database
    targetSessionAttributes = .any
    for pair in query.split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1)
      let key = String(parts[0]).removingPercentEncoding ?? String(parts[0])
      let value = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? "") : ""
      switch key {
      case "target_session_attrs":
        guard let attributes = TargetSessionAttributes(rawValue: value) else {
          throw EventStoreError(
            .invalidConfiguration,
            "target_session_attrs is one of "
              + TargetSessionAttributes.allCases.map(\.rawValue).joined(separator: ", ")
              + ", not \"\(value)\"")
        }
        targetSessionAttributes = attributes
      case "sslmode":
        guard let mode = SSLMode(rawValue: value) else {
          throw EventStoreError(
            .invalidConfiguration,
            "sslmode is one of " + SSLMode.allCases.map(\.rawValue).joined(separator: ", ")
              + ", not \"\(value)\"")
        }
        sslMode = mode
      case "sslrootcert":
        sslRootCertificate = value.isEmpty ? nil : value
      case "user" where user == nil:
        username = value
      case "password" where password == nil:
        password = value
      case "dbname":
        self.database = value.isEmpty ? nil : value
      default:
        continue
      }
    }
  }

  private static func host(_ text: Substring, shape: String) throws(EventStoreError) -> Host {
    var name = text
    var port: Substring?
    if name.hasPrefix("[") {
      guard let close = name.firstIndex(of: "]") else {
        throw EventStoreError(.invalidConfiguration, shape)
      }
      let after = name[name.index(after: close)...]
      name = name[name.index(after: name.startIndex)..<close]
      if after.hasPrefix(":") {
        port = after.dropFirst()
      } else if !after.isEmpty {
        throw EventStoreError(.invalidConfiguration, shape)
      }
    } else if let colon = name.lastIndex(of: ":") {
      port = name[name.index(after: colon)...]
      name = name[..<colon]
    }
    guard !name.isEmpty else {
      throw EventStoreError(
        .invalidConfiguration,
        "a database URL names a host before each port: postgres://user@host1:5432,host2:5432/db")
    }
    guard let port else { return Host(name: String(name)) }
    guard let number = Int(port), (1...65535).contains(number) else {
      throw EventStoreError(
        .invalidConfiguration, "the port \"\(port)\" of \(name) is not a number from 1 to 65535")
    }
    return Host(name: String(name), port: number)
  }

  private static func systemUser() -> String? {
    let name = ProcessInfo.processInfo.userName
    return name.isEmpty ? nil : name
  }

  /// Splits a comma list of URLs (`STORELEDGER_READ_DATABASE_URLS`): a comma starts a new URL
  /// only where a scheme follows it, so a URL naming several hosts stays whole.
  public static func list(_ text: String) -> [String] {
    var urls: [String] = []
    for piece in text.split(separator: ",", omittingEmptySubsequences: false) {
      let trimmed = piece.trimmingCharacters(in: .whitespaces)
      if urls.isEmpty || trimmed.lowercased().hasPrefix("postgres") && trimmed.contains("://") {
        urls.append(trimmed)
      } else {
        urls[urls.count - 1] += "," + trimmed
      }
    }
    return urls.filter { !$0.isEmpty }
  }

  /// The same hosts and database as another user (roles connect without a password in tests).
  public func with(username: String, password: String? = nil) -> DatabaseURL {
    var copy = self
    copy.username = username
    copy.password = password
    return copy
  }

  /// The same hosts, another database.
  public func with(database: String) -> DatabaseURL {
    var copy = self
    copy.database = database
    return copy
  }

  /// The first host's pool configuration (``clientConfiguration(for:)``).
  public var clientConfiguration: PostgresClient.Configuration {
    clientConfiguration(for: hosts[0])
  }

  /// A pool's configuration for one of the hosts.
  ///
  /// Sessions run with `jit = off`: the engine's statements are short, and PostgreSQL's JIT
  /// compiled some of them on every execution once the tables grew (a fifth of the server's
  /// time under webhook load went to LLVM).
  public func clientConfiguration(for host: Host) -> PostgresClient.Configuration {
    var configuration = PostgresClient.Configuration(
      host: host.name, port: host.port, username: username, password: password,
      database: database, tls: tls(for: host))
    configuration.options.additionalStartupParameters = [("jit", "off")]
    if let maximumConnections { configuration.options.maximumConnections = maximumConnections }
    return configuration
  }

  /// How a connection to a host uses TLS.
  enum TLSUse {
    case off
    case prefer(TLSConfiguration)
    case require(TLSConfiguration)
  }

  /// TLS as `sslmode` asks: `disable` off; `allow` and `prefer` when the server offers it;
  /// `require` always (checking the chain when `sslrootcert` is given, as libpq does);
  /// `verify-ca` the chain; `verify-full` the chain and the host name. Without `sslmode`, off
  /// on loopback and preferred elsewhere.
  func tlsUse(for host: Host) -> TLSUse {
    var configuration = TLSConfiguration.makeClientConfiguration()
    if let sslRootCertificate { configuration.trustRoots = .file(sslRootCertificate) }
    switch sslMode {
    case nil:
      return host.isLoopback ? .off : .prefer(configuration)
    case .disable:
      return .off
    case .allow, .prefer:
      configuration.certificateVerification = .none
      return .prefer(configuration)
    case .require:
      configuration.certificateVerification =
        sslRootCertificate == nil ? .none : .noHostnameVerification
      return .require(configuration)
    case .verifyCA:
      configuration.certificateVerification = .noHostnameVerification
      return .require(configuration)
    case .verifyFull:
      configuration.certificateVerification = .fullVerification
      return .require(configuration)
    }
  }

  /// A pool's TLS for one of the hosts (``tlsUse(for:)``).
  func tls(for host: Host) -> PostgresClient.Configuration.TLS {
    switch tlsUse(for: host) {
    case .off: .disable
    case .prefer(let configuration): .prefer(configuration)
    case .require(let configuration): .require(configuration)
    }
  }

  /// One connection's TLS for one of the hosts (``tlsUse(for:)``).
  func connectionTLS(for host: Host) throws -> PostgresConnection.Configuration.TLS {
    switch tlsUse(for: host) {
    case .off: .disable
    case .prefer(let configuration): .prefer(try NIOSSLContext(configuration: configuration))
    case .require(let configuration): .require(try NIOSSLContext(configuration: configuration))
    }
  }

  /// A URL of the given parts (no query parameters).
  init(hosts: [Host], username: String, database: String?) {
    self.hosts = hosts
    self.username = username
    self.database = database
    self.targetSessionAttributes = .any
  }

  /// Whether every host is this machine.
  public var isLoopback: Bool { hosts.allSatisfy(\.isLoopback) }

  /// `host:port,host:port/database`: names the database in logs and metric labels (no user,
  /// no password).
  public var address: String {
    hosts.map(\.description).joined(separator: ",") + "/\(database ?? "")"
  }

  /// The URL as given, its password left out.
  public var description: String {
    var parameters: [String] = []
    if targetSessionAttributes != .any {
      parameters.append("target_session_attrs=\(targetSessionAttributes.rawValue)")
    }
    if let sslMode { parameters.append("sslmode=\(sslMode.rawValue)") }
    if let sslRootCertificate {
      let value =
        sslRootCertificate.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)
        ?? sslRootCertificate
      parameters.append("sslrootcert=\(value.replacingOccurrences(of: "&", with: "%26"))")
    }
    let query = parameters.isEmpty ? "" : "?" + parameters.joined(separator: "&")
    return "postgres://\(username)@\(address)\(query)"
  }
}
