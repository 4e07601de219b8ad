import Foundation
import StoreLedgerCore

/// One row of `storeledger.account_views`.
package struct StoredAccountView: Sendable {
  /// Appends that named the account.
  package var changes: Int64
  /// The `changes` the stored summary includes.
  package var projectedChanges: Int64
  package var projection: String?
  package var summaryJSON: String?
  package var interval: StableInterval

  /// The stored summary, if it answers for `time`: it includes every append that named the
  /// account, was computed by the same rules and catalog, and holds at `time`.
  package func summary(at time: Timestamp, projection current: String) -> AccountSummary? {
    guard projectedChanges == changes, projection == current, interval.contains(time),
      let summaryJSON
    else { return nil }
    return try? JSONDecoder().decode(AccountSummary.self, from: Data(summaryJSON.utf8))
  }
}
