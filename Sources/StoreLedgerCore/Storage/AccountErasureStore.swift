import Foundation

/// Erasure of accounts' personal data from the log and every derived table, and what the log
/// records of erasures.
public protocol AccountErasureStore: Sendable {
  /// Erases the request's accounts in one transaction, as the database's owner role.
  /// Throws `unknownAccount`, `sharedAccountData` or `invalidEvent` (a malformed request) and
  /// changes nothing then.
  func erase(_ request: ErasureRequest) async throws(EventStoreError) -> ErasureReceipt

  /// Every erasure the log records, oldest first, each with the rows found for it now.
  func erasures() async throws(EventStoreError) -> [ErasureRecord]

  /// The erasure that erased the account of `appAccountToken`; nil when none did.
  func erasure(ofAccount appAccountToken: String) async throws(EventStoreError) -> UUID?

  /// Erasers named by erased rows that no erasure event records, with their row counts.
  func unrecordedErasures() async throws(EventStoreError) -> [UUID: Int64]

  /// How many accounts whose later data an erasure quarantined the index lists again (an
  /// append that raced the erasure).
  func quarantinedAccountsIndexed() async throws(EventStoreError) -> Int64
}
