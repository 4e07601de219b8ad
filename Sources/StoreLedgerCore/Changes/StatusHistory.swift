/// An account's subscriptions' statuses as they went by Apple's clock: what "who entered
/// billing retry in the last 7 days" and an outage grant select (projections/changes.md,
/// "Status history").
///
/// The change feed tells a backend what it has not seen yet, so it derives each event when the
/// ledger learned it: a year recorded in one go says only where each subscription stands at
/// its recording. The history instead takes the account's events in the order their news
/// happened (a notification at its `signedDate`, a transaction at its purchase, the backend's
/// commands at their own time; never later than their recording), folds each at that instant
/// and lets the clock step between them. So a billing retry that began and ended before the
/// ledger heard of it is in the history, at Apple's instants, however fast the year was
/// recorded. It is a function of the account's events and their recordings alone (no order of
/// the log's), so a late notification rewrites it; the projector continues it with events that
/// happened after the last one taken (``StatusHistoryDerivation``), the rebuild derives it
/// whole. Each step compares the subscriptions alone (``ChangeDerivation/Scope/statuses``).
public enum StatusHistory {
  /// Every status a subscription of `token` entered through `horizon`, oldest first, each with
  /// its place in the history (`ordinal`), when it took effect (T1, T8) and when the ledger
  /// could first tell it (the latest recording among the events folded by then; for the
  /// clock's steps, the crossing itself when that is later).
  public static func derive(
    token: String, catalog: ProductCatalog = .empty, options: ProjectionOptions = .init(),
    events: [LedgerEvent], through horizon: Timestamp
  ) -> [StatusTransitionRow] {
    // Ties by recording, then key: the same events give the same history in any order. An
    // event's recording is never clamped to `horizon`: one recorded just after the projector
    // took its instant is then taken as the audit, deriving later, takes it.
    var derivation = StatusHistoryDerivation(token: token, catalog: catalog, options: options)
    derivation.take(events, recordedBy: horizon)
    return derivation.history(through: horizon)
  }

  /// When an event's news happened, by its own data, never after `recorded`: a notification's
  /// `signedDate`; a transaction's purchase (one signed on request says nothing of what came
  /// between its purchase and the asking); a status or renewal info as signed; the backend's
  /// commands at their time.
  public static func happened(_ event: LedgerEvent, by recorded: Timestamp) -> Timestamp {
    let dated: Timestamp? =
      switch event.body {
      case .transaction(let seen): seen.transaction.purchaseDate
      default: event.effectiveDate
      }
    return min(dated ?? recorded, recorded)
  }
}
