/// When a derived change took effect by Apple's data (or by the backend's, for its own
/// commands): the change's `effectiveAt`, beside the instant the derivation took its step
/// and the time the ledger recorded it. Rules T1–T8 of projections/changes.md ("Effective
/// time"); the derivation is the one caller, so every view reads the same answer.
public enum ChangeEffectiveTime {
  /// T1: a step of the clock takes effect at the instant it crossed (a period's, a grace
  /// period's, a grant's or a commitment's end).
  public static func ofClock(at instant: Timestamp) -> Timestamp { instant }

  /// T2–T8 for the changes one event caused, derived at `instant`; a subscription's status
  /// (and the billing and grace changes beside it) by what the status means in `after`, the
  /// snapshot the event left (T8).
  public static func of(
    _ changes: [AccountChange], causedBy event: LedgerEvent, after: LedgerSnapshot,
    purchased: (String) -> Timestamp?, at instant: Timestamp
  ) -> [Timestamp] {
    var statusTimes: [String: Timestamp] = [:]
    for change in changes where change.kind == .subscriptionStatusChanged {
      let subscription = after.subscriptions.first { $0.originalTransactionId == change.subject }
      statusTimes[change.subject] = entered(
        change.new.flatMap { Int32($0) }, subscription, purchased: purchased, causedBy: event,
        at: instant)
    }
    return changes.map { change in
      switch change.kind {
      case .subscriptionStatusChanged, .billingProblemStarted, .billingProblemResolved,
        .gracePeriodStarted, .gracePeriodEnded:
        statusTimes[change.subject] ?? of(change, causedBy: event, at: instant)
      default: of(change, causedBy: event, at: instant)
      }
    }
  }

  /// When a subscription entered `status` by its own dates: billing retry at its grace
  /// period's end once that passed, else at its period's end; grace at its period's end;
  /// active at its current period's purchase; expired when a notification said so, else at
  /// the later of its period's and grace period's ends; revoked at its revocation.
  private static func entered(
    _ status: Int32?, _ subscription: SubscriptionView?, purchased: (String) -> Timestamp?,
    causedBy event: LedgerEvent, at instant: Timestamp
  ) -> Timestamp {
    let dated: Timestamp? =
      switch (status, subscription) {
      case (3?, let view?):
        view.gracePeriodExpiresDate.flatMap { $0 <= instant ? $0 : nil } ?? view.expiresDate
      case (4?, let view?): view.expiresDate
      case (1?, let view?): purchased(view.transactionId)
      case (2?, let view?):
        if case .notification = event.body {
          event.effectiveDate
        } else {
          [view.expiresDate, view.gracePeriodExpiresDate].compactMap { $0 }
            .filter { $0 <= instant }.max()
        }
      case (5?, _): event.body.transactionFacts?.revocationDate
      default: nil
      }
    return dated.map { min($0, instant) } ?? of(event, at: instant)
  }

  /// T2–T8 for a change an event caused, derived at `instant`.
  public static func of(
    _ change: AccountChange, causedBy event: LedgerEvent, at instant: Timestamp
  ) -> Timestamp {
    if let facts = event.body.transactionFacts, facts.transactionId == change.subject,
      let dated = dated(change.kind, facts)
    {
      return min(dated, instant)
    }
    return of(event, at: instant)
  }

  /// T2, T3 for the money a transaction brings (its record may be another than the event's,
  /// as when a link brings a whole chain); T4–T7 for the rest.
  public static func of(
    _ change: AccountChange, of facts: TransactionFacts, causedBy event: LedgerEvent,
    at instant: Timestamp
  ) -> Timestamp {
    if let dated = dated(change.kind, facts) { return min(dated, instant) }
    return of(event, at: instant)
  }

  /// T4–T7: the instant an event says its news happened.
  public static func of(_ event: LedgerEvent, at instant: Timestamp) -> Timestamp {
    let dated: Timestamp? =
      switch event.body {
      // T4: Apple dates a notification when it sends it, and keeps that date in its
      // Notification History: one recovered late keeps it.
      case .notification(let facts): facts.signedDate
      // T5: data Apple signs on request (history, statuses, the app's JWS) is dated when it
      // was asked for; what happened is the latest of its own dates by then.
      case .transaction(let seen): latest(seen.transaction, grace: nil, by: instant)
      case .status(let facts):
        facts.transaction.flatMap {
          latest($0, grace: facts.renewal?.gracePeriodExpiresDate, by: instant)
        } ?? facts.signedDate
      case .renewal(let facts): facts.signedDate
      // T6: the backend's commands carry their own time.
      case .debit, .link, .seat, .grant: event.effectiveDate
      }
    // T7: never later than the step that derived it, nor missing.
    return min(dated ?? instant, instant)
  }

  /// T6 for a refund request's step: the time of its event.
  public static func of(_ event: ConsumptionEvent, at instant: Timestamp) -> Timestamp {
    let dated: Timestamp =
      switch event {
      case .requested(let requested): requested.requestedAt
      case .sending(let sending): sending.at
      case .answered(let answered): answered.at
      case .attemptFailed(let failed): failed.at
      case .closed(let closed): closed.at
      }
    return min(dated, instant)
  }

  /// T2: a purchase, renewal, trial or product change takes effect when the transaction was
  /// bought; T3: a refund when Apple revoked it.
  private static func dated(_ kind: AccountChange.Kind, _ facts: TransactionFacts) -> Timestamp? {
    switch kind {
    case .purchase, .renewal, .trialStarted, .trialConverted, .productChanged:
      facts.purchaseDate
    case .refund, .refunded: facts.revocationDate
    default: nil
    }
  }

  /// The latest of a transaction's dates (bought, expired, grace ended, revoked) at or before
  /// `time`.
  private static func latest(_ facts: TransactionFacts, grace: Timestamp?, by time: Timestamp)
    -> Timestamp?
  {
    [facts.purchaseDate, facts.expiresDate, grace, facts.revocationDate].compactMap { $0 }
      .filter { $0 <= time }.max()
  }
}
