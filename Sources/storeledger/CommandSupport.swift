import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore

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
      case .databaseRejected: "the database refused it; check the role's privileges"
      default: ""
      }
    description = hint.isEmpty ? "\(error)" : "\(error)\n  → \(hint)"
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
