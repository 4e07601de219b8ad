import Foundation
import PostgresNIO
import StoreLedgerCore

/// A `postgres://user:password@host:port/database` URL, as DATABASE_URL holds it.
public struct DatabaseURL: Sendable, Hashable, CustomStringConvertible {
  public var host: String
  public var port: Int
  public var username: String
  public var password: String?
  public var database: String?

  public init(_ text: String) throws(EventStoreError) {
    guard let components = URLComponents(string: text),
      ["postgres", "postgresql"].contains(components.scheme ?? ""),
      let host = components.host, !host.isEmpty, let username = components.user
    else {
      throw EventStoreError(
        .invalidConfiguration,
        "a database URL looks like postgres://user:password@host:5432/database")
    }
    self.host = host
    self.port = components.port ?? 5432
    self.username = username
    self.password = components.password?.removingPercentEncoding
    let path = components.path.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
    self.database = path.isEmpty ? nil : path
  }

  /// The same server and database as another user (roles connect without a password in tests).
  public func with(username: String, password: String? = nil) -> DatabaseURL {
    var copy = self
    copy.username = username
    copy.password = password
    return copy
  }

  /// The same server, another database.
  public func with(database: String) -> DatabaseURL {
    var copy = self
    copy.database = database
    return copy
  }

  /// TLS is off for loopback hosts and preferred elsewhere.
  ///
  /// Sessions run with `jit = off`: the engine's statements are short, and PostgreSQL's JIT
  /// compiled some of them on every execution once the tables grew (a fifth of the server's
  /// time under webhook load went to LLVM).
  public var clientConfiguration: PostgresClient.Configuration {
    var configuration = PostgresClient.Configuration(
      host: host, port: port, username: username, password: password, database: database,
      tls: isLoopback ? .disable : .prefer(.clientDefault))
    configuration.options.additionalStartupParameters = [("jit", "off")]
    return configuration
  }

  /// Whether the server is this machine (TLS is off then).
  public var isLoopback: Bool { ["127.0.0.1", "localhost", "::1"].contains(host) }

  /// `host:port/database`: names a server in logs and metric labels (no user, no password).
  public var address: String { "\(host):\(port)/\(database ?? "")" }

  /// Never shows the password.
  public var description: String {
    "postgres://\(username)@\(host):\(port)/\(database ?? "")"
  }
}
