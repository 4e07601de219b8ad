import ArgumentParser
import Foundation
import Logging
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres

/// A failure of the work itself (exit 1), with a message that says what to do next.
struct CommandFailure: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }

  /// A ledger error with the next step for its code.
  init(_ error: LedgerError) {
    let hint: String =
      switch error.code {
      case .databaseUnavailable:
        "check --database-url (or DATABASE_URL) and that PostgreSQL is up and migrated "
          + "(storeledger migrate)"
      case .verificationFailed:
        "check --root-certs, --bundle-id, --app-apple-id and --environments match the data"
      case .insufficientBalance: "see the balance with `storeledger entitlements TOKEN`"
      case .databaseRejected where error.message.contains("storeledger migrate"): ""
      case .databaseRejected: "the database refused it; check the role's privileges"
      default: ""
      }
    description = hint.isEmpty ? "\(error)" : "\(error)\n  → \(hint)"
  }
}

extension CommandFailure {
  /// A database that cannot be used, by cause, with the next step.
  init(_ problem: DatabaseProblem) {
    description = "\(problem.code): \(problem.message)"
  }
}

/// Opens one connection before a command's work: a closed port, a wrong password, a missing
/// database or an unreachable host are said at once and by name, not after the pool's retries
/// as "no answer in time".
enum DatabaseCheck {
  static func require(_ url: DatabaseURL) async throws {
    var logger = Logger(label: "storeledger.database-check")
    logger.logLevel = .critical
    if let problem = await DatabaseProblem.diagnose(url, logger: logger) {
      throw CommandFailure(problem)
    }
  }

  /// The error of a command's work, with the role named when the database refused it for
  /// want of a privilege.
  static func failure(_ error: LedgerError, url: DatabaseURL) -> CommandFailure {
    if error.code == .databasePermissionDenied,
      let problem = DatabaseProblem.classify(sqlState: "42501", url: url)
    {
      return CommandFailure(problem)
    }
    return CommandFailure(error)
  }
}

/// JSON output of the commands: sorted keys, ISO 8601 dates.
enum CommandJSON {
  static func string<Value: Encodable>(_ value: Value) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    encoder.dateEncodingStrategy = .iso8601
    return String(decoding: try encoder.encode(value), as: UTF8.self)
  }

  static func time(_ timestamp: Timestamp?) -> String {
    timestamp.map { $0.date.formatted(.iso8601) } ?? "-"
  }
}
