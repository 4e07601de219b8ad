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
/// recorded. It is derived whole from the account's events (with their recordings) whenever
/// its view is, by the projector and the rebuild alike: it depends on no order of the log's,
/// and a late notification rewrites it.
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
    let events = events.enumerated().map {
      index, event -> (index: Int, event: LedgerEvent, at: Timestamp, recorded: Timestamp) in
      let recorded = event.recordedAt ?? horizon
      return (index, event, happened(event, by: recorded), recorded)
    }.sorted {
      ($0.at, $0.recorded, $0.event.key ?? "", $0.index)
        < ($1.at, $1.recorded, $1.event.key ?? "", $1.index)
    }
    var derivation = ChangeDerivation(token: token, catalog: catalog, options: options)
    var rows: [StatusTransitionRow] = []
    var learned: Timestamp?
    func keep(_ derived: [DerivedChange], recordedAt: (DerivedChange) -> Timestamp) {
      for item in derived where item.change.kind == .subscriptionStatusChanged {
        guard let to = item.change.new.flatMap({ Int32($0) }) else { continue }
        rows.append(
          StatusTransitionRow(
            ordinal: rows.count, appAccountToken: token,
            originalTransactionId: item.change.subject,
            from: item.change.old.flatMap { Int32($0) }, to: to, effectiveAt: item.effectiveAt,
            recordedAt: recordedAt(item), cause: item.cause))
      }
    }
    func clock(_ item: DerivedChange) -> Timestamp {
      learned.map { max($0, item.occurredAt) } ?? item.occurredAt
    }
    for step in events {
      // The clock's steps strictly before the event; one at its very instant gives way to it
      // (a failed renewal signed at the period's end is billing retry, never a moment expired).
      keep(
        derivation.advance(to: Timestamp(milliseconds: step.at.milliseconds - 1)),
        recordedAt: clock)
      let recorded = learned.map { max($0, step.recorded) } ?? step.recorded
      learned = recorded
      keep(derivation.apply(step.event, at: step.at, eventFirst: true)) { _ in recorded }
    }
    keep(derivation.advance(to: horizon), recordedAt: clock)
    return rows
  }

  /// When an event's news happened, by its own data, never after `recorded`: a notification's
  /// `signedDate`; a transaction's purchase (one signed on request says nothing of what came
  /// between its purchase and the asking); a status or renewal info as signed; the backend's
  /// commands at their time.
  static func happened(_ event: LedgerEvent, by recorded: Timestamp) -> Timestamp {
    let dated: Timestamp? =
      switch event.body {
      case .transaction(let seen): seen.transaction.purchaseDate
      default: event.effectiveDate
      }
    return min(dated ?? recorded, recorded)
  }
}
