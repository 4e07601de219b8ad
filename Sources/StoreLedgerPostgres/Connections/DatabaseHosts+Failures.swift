import Foundation
import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import StoreLedgerCore
import Synchronization

/// Which failures of a statement mean its host may have lost the role it had.
extension DatabaseHosts {
  /// Whether `error`, thrown by a statement on a pool, says its host may no longer have the
  /// role: the connection closed or could not be made, the server is shutting down or
  /// starting, or it refused a write as read-only (a demoted primary).
  public static func losesHost(_ error: any Error) -> Bool {
    if error is ConnectionClosedError || error is TimeoutError { return true }
    if let error = error as? EventStoreError {
      return error.code == .databaseUnavailable || error.sqlState == "25006"
    }
    guard let psql = error as? PSQLError else {
      return error is NIOConnectionError || error is ChannelError || error is IOError
    }
    if let state = psql.serverInfo?[.sqlState] {
      return state == "25006" || state.hasPrefix("57P") || state.hasPrefix("08")
    }
    return psql.code == .connectionError || psql.code == .serverClosedConnection
      || psql.code == .clientClosedConnection
  }

  /// Whether `error` says the statement was refused before it changed anything because the
  /// host is read-only: safe to run again on the new primary.
  public static func refusedAsReadOnly(_ error: any Error) -> Bool {
    if let error = error as? EventStoreError { return error.sqlState == "25006" }
    return (error as? PSQLError)?.serverInfo?[.sqlState] == "25006"
  }

  /// A host's failure in a few words, for the answer that names every host.
  static func short(_ problem: DatabaseProblem) -> String {
    switch problem.code {
    case .connectionRefused: "refused the connection"
    case .timeout: "did not answer in time"
    case .authenticationFailed: "refused the role"
    case .databaseMissing: "has no such database"
    case .tlsFailed: "failed TLS: \(problem.message)"
    default: problem.code.rawValue
    }
  }
}
