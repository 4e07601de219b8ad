/// Lifecycle changes with money (projections/changes.md, C24–C32): what one event did to one
/// transaction (bought, renewed, refunded, reversed), and the money beside two snapshot
/// changes (auto-renew off, expiry). Each transaction a chain gains gives its change once,
/// whatever events brought it and in whatever order: a replay that brings three missed
/// renewals gives three `renewal` changes.
enum MoneyChanges {
  /// The changes of the record of one transaction going from `previous` (nil: new to the
  /// state) to `now`. Family members' and assignees' transactions carry no money.
  static func changes(
    previous: TransactionRecord?, now: TransactionRecord, state: LedgerState, account: String
  ) -> [AccountChange] {
    let facts = now.facts
    let money = TransactionMoney(facts)
    guard money.isCounted else { return [] }
    var found: [AccountChange] = []
    func add(
      _ kind: AccountChange.Kind, subject: String, old: String? = nil, amount: Int64?,
      reason: ChargeReason? = nil
    ) {
      found.append(
        AccountChange(
          kind, account: account, subject: subject, old: old,
          money: ChangeMoney(facts, amount: amount, reason: reason)))
    }
    if previous == nil {
      if facts.isAutoRenewable {
        subscriptionChanges(of: now, money, state: state, add: add)
      } else {
        add(.purchase, subject: facts.transactionId, amount: money.gross)
      }
    }
    refundChanges(previous: previous, now: now, money, add: add)
    return found
  }

  private static func subscriptionChanges(
    of record: TransactionRecord, _ money: TransactionMoney, state: LedgerState,
    add: (AccountChange.Kind, String, String?, Int64?, ChargeReason?) -> Void
  ) {
    let facts = record.facts
    let bought = facts.purchaseDate?.milliseconds ?? .min
    let chain = state.transactions.values.filter {
      $0.facts.originalTransactionId == facts.originalTransactionId
    }
    // Purchase or renewal by Apple's own fields, as revenue counts them (one rule), and the
    // period before it from the same tenures the status fold reads.
    let tenures = SubscriptionChain.tenures(of: Array(chain))
    let reason = ChargeReason.of(record, among: tenures)
    if reason == .seatAddition {
      add(.purchase, facts.transactionId, nil, money.gross, reason)
      return
    }
    let prior = tenures.last {
      $0.record.facts.transactionId != facts.transactionId && $0.start.milliseconds < bought
    }?.record
    guard let prior else {
      add(.purchase, facts.transactionId, nil, money.gross, reason)
      if money.isTrial { add(.trialStarted, facts.originalTransactionId, nil, nil, nil) }
      return
    }
    add(reason == .renewal ? .renewal : .purchase, facts.transactionId, nil, money.gross, reason)
    if TransactionMoney(prior.facts).isTrial, !money.isTrial {
      add(.trialConverted, facts.originalTransactionId, nil, money.gross, nil)
    }
    if let product = prior.facts.productId, product != facts.productId {
      add(.productChanged, facts.originalTransactionId, product, money.gross, nil)
    }
  }

  private static func refundChanges(
    previous: TransactionRecord?, now: TransactionRecord, _ money: TransactionMoney,
    add: (AccountChange.Kind, String, String?, Int64?, ChargeReason?) -> Void
  ) {
    let id = now.facts.transactionId
    guard money.gross > 0 else { return }
    let before = previous?.refundHistory ?? []
    for (refund, reinstated) in now.refundHistory where refund.type != .familyRevoke {
      let amount = money.refunded(percentage: refund.percentage)
      let known = before.first { $0.revocation.date == refund.date }
      if known == nil { add(.refund, id, nil, amount, nil) }
      if reinstated != nil, known?.reinstatedAt == nil {
        add(.refundReversedWithMoney, id, nil, amount, nil)
      }
    }
    let seatsBefore = previous?.seatRefunds.count ?? 0
    for refund in now.seatRefunds.dropFirst(seatsBefore) {
      add(.refund, id, nil, money.refunded(seats: refund.seats, of: now.facts), nil)
    }
  }

  /// The money beside snapshot changes: a subscription whose renewal was turned off
  /// (`subscription.cancelled`, with Apple's intent) and one that expired
  /// (`subscription.expired`), each with its current period.
  static func companions(
    of changes: [AccountChange], state: LedgerState, after: LedgerSnapshot, account: String
  ) -> [AccountChange] {
    changes.compactMap { change in
      let kind: AccountChange.Kind
      switch change.kind {
      case .autoRenewTurnedOff: kind = .subscriptionCancelled
      case .subscriptionStatusChanged where change.new == "2": kind = .subscriptionExpired
      default: return nil
      }
      guard
        let subscription = after.subscriptions.first(where: {
          $0.originalTransactionId == change.subject
        }),
        let record = state.transactions[RecordKey(subscription.transactionId)],
        TransactionMoney(record.facts).isCounted
      else { return nil }
      return AccountChange(
        kind, account: account, subject: change.subject,
        money: ChangeMoney(
          record.facts, amount: nil, expirationIntent: subscription.expirationIntent))
    }
  }
}
