import StoreLedgerCore
import StoreLedgerPostgres

/// Projects accounts from the log into their stored views and derives their changes: the
/// projector's work, the rebuild's and the audit's comparison all fold an account this one way.
struct AccountViewWriter: Sendable {
  /// The stored views and the change derivations.
  let views: any AccountViewStore
  let configuration: LedgerConfiguration
  /// ``LedgerConfiguration/projectionFingerprint``, computed once.
  let projection: String
  /// Current views in memory; nil when the configuration turns it off.
  let viewCache: AccountViewCache?
  /// Signalled after this process appended changes to the feed: wakes its change readers.
  let changesAppended: WakeUpSignal
  /// The status history derivations of the last refreshes, continued by the next.
  let historyCache: StatusHistoryCache?
}
