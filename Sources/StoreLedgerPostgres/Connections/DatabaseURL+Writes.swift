import Foundation
import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import StoreLedgerCore
import Synchronization

extension DatabaseURL {
  /// This URL when it can be a ledger's (its `target_session_attrs` does not ask for a
  /// standby); a usage error naming the fix otherwise.
  public func checkedForWrites() throws(EventStoreError) -> DatabaseURL {
    switch targetSessionAttributes {
    case .any, .readWrite, .primary:
      return self
    case .readOnly, .standby, .preferStandby:
      throw EventStoreError(
        .invalidConfiguration,
        "the ledger's database URL must reach the host that accepts writes, and "
          + "target_session_attrs=\(targetSessionAttributes.rawValue) asks for a standby; use "
          + "read-write (or leave it out), and give standbys as --read-database-url")
    }
  }

  /// Stands for the URL of a pool given as it is.
  static let placeholder = DatabaseURL(
    hosts: [Host(name: "localhost")], username: "storeledger", database: nil)
}
