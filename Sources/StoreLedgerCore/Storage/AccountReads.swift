import Foundation

/// An account's part of the log and its stored view, as the account queries read them. An
/// implementation may answer from a replica when `consistency` allows (and says so in the
/// ``ReadAnswer``); `exact` reads are the primary's.
public protocol AccountReads: Sendable {
  /// The ledger events of the streams indexed under `account`, each stream oldest first; of
  /// one environment (and the backend's commands, which have none) when `environment` is
  /// given. A refund request's events are not ledger events and are left out.
  func events(of account: String, environment: String?, consistency: ReadConsistency)
    async throws(EventStoreError) -> ReadAnswer<[LedgerEvent]>

  /// The same streams' events as stored, with the original JWS.
  func recordedEvents(of account: String, consistency: ReadConsistency)
    async throws(EventStoreError) -> [RecordedEvent]

  /// The account's stored view: `part` of it, or the whole view (an ``AccountSummary``) when
  /// `part` is nil; nil when no view is stored.
  func storedView(
    of account: String, part: AccountViewSlice.Part?, consistency: ReadConsistency
  ) async throws(EventStoreError) -> ReadAnswer<AccountViewSlice?>
}
