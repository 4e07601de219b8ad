extension LedgerView {
  /// Every account's entitlements at `time`, active or not, one row per (account, name).
  public func entitlements(at time: Timestamp) -> [EntitlementView] {
    entitlements(in: LedgerMoment(self, at: time))
  }

  /// One account's entitlements at `time`.
  public func entitlements(for appAccountToken: String, at time: Timestamp) -> [EntitlementView] {
    entitlements(at: time).filter { $0.appAccountToken == appAccountToken }
  }

  func entitlements(in moment: LedgerMoment) -> [EntitlementView] {
    decidingGrants(in: moment).map(\.view)
  }

  /// Why `entitlement` of the account is (in)active at `time`; nil when nothing had granted it
  /// by then. The view answers from every event it folded: to cite none signed after `time`,
  /// fold only what was known by then (``AccountExplainer``).
  public func explainEntitlement(
    _ entitlement: String, for appAccountToken: String, at time: Timestamp
  ) -> Explanation? {
    let grants = self.grants(at: time, explained: true).filter {
      $0.appAccountToken == appAccountToken && $0.entitlement == entitlement
    }
    guard let deciding = grants.max(by: { $1.decides(over: $0) }) else { return nil }
    let answer = deciding.active ? "active" : "inactive"
    let because = deciding.explanation?.sentence ?? ""
    return Explanation(
      subject: "entitlement \(entitlement)", answer: answer,
      sentence: deciding.active
        ? "\(entitlement) is active: \(because)" : "\(entitlement) is not active: \(because)",
      rule: deciding.rule.summary, events: deciding.explanation?.events ?? [],
      because: grants.sorted { $0.decides(over: $1) }.compactMap(\.explanation))
  }

  /// The answer for an entitlement nothing had granted the account by `time`: the default.
  public static func neverHeld(_ entitlement: String, at time: Timestamp) -> Explanation {
    Explanation(
      subject: "entitlement \(entitlement)", answer: "never held",
      sentence:
        "\(entitlement) was never held by \(ExplanationWording.day(time)): nothing in the account's log grants it by then",
      rule:
        "E0: an entitlement that no subscription, purchase, balance, seat or operator's grant of the account granted by T is never held (the default answer, decided by no event)",
      events: [])
  }

  /// Why the subscription has its status at `time`; nil when it had not begun.
  public func explainSubscription(_ originalTransactionId: String, at time: Timestamp)
    -> Explanation?
  {
    guard let result = chains[originalTransactionId]?.evaluate(at: time) else { return nil }
    return explanation(of: result, for: originalTransactionId, at: time)
  }

  private func explanation(
    of result: SubscriptionChain.Evaluation, for id: String, at time: Timestamp
  ) -> Explanation {
    let isEntitled = options.isEntitled(result.status)
    let entitled = isEntitled ? "entitled" : "not entitled"
    let reported =
      result.reported.map {
        " as the App Store reported at \($0.signedDate?.description ?? "an unknown time")"
      } ?? ""
    var rule = result.rule.summary
    var events = result.events
    if result.reported == nil, result.current.isSeatAddition, let chain = chains[id] {
      // Seats added mid-period are transactions of the same period: together they decide it.
      let end = result.current.facts.expiresDate
      events += chain.transactions.filter {
        $0.facts.expiresDate == end && ($0.facts.purchaseDate ?? time) <= time
      }.map(\.source)
    }
    let inForce = result.rule == .active ? chains[id]?.renewals.inForce(at: time) : nil
    if let inForce { events.append(inForce.source) }
    var sentence = ExplanationWording.subscription(
      result, renewal: inForce, entitled: isEntitled,
      retryLimit: result.current.isCommitment
        ? SubscriptionChain.commitmentRetryLimit : SubscriptionChain.billingRetryLimit)
    if result.current.isCommitment, result.reported == nil {
      // A commitment plan: its own rules say why a cancellation ends nothing yet, and why
      // billing problems have no grace and a longer retry.
      let renewal = result.renewal ?? chains[id]?.renewals.inForce(at: time)
      if let plan = BillingPlanView(result.current.facts, renewal: renewal?.facts),
        plan.cancelledInsideCommitment
      {
        let end = plan.commitmentExpiresDate?.description ?? "the commitment's end"
        rule +=
          "; P1: cancelled inside its 12-month commitment, the remaining months are billed and entitle until \(end)"
        sentence +=
          "; the customer cancelled inside a 12-month commitment, so the remaining months are billed and entitle until \(ExplanationWording.day(plan.commitmentExpiresDate))"
        if let source = renewal?.source { events.append(source) }
      }
      if result.rule == .billingRetry || result.rule == .expired {
        rule += "; P2: a commitment plan has no grace period and retries billing for 90 days"
      }
    }
    if let transfer = ownershipTransfer(
      ofChain: id, records: chains[id]?.transactions ?? [], at: time)
    {
      rule += "; T1: the purchase was transferred to this account at \(Self.moment(transfer))"
      sentence +=
        "; the purchase was moved to this account on \(ExplanationWording.day(transfer.linkedAt))"
      events.append(transfer.source)
    }
    return Explanation(
      subject: "subscription \(id)",
      answer: "status \(result.status.rawValue) (\(result.status.name)), \(entitled)\(reported)",
      sentence: sentence, rule: rule, events: events)
  }

  private func decidingGrants(in moment: LedgerMoment) -> [EntitlementGrant] {
    var deciding: [String: EntitlementGrant] = [:]
    for grant in grants(in: moment, explained: false) {
      let key = grant.appAccountToken + "\u{0}" + grant.entitlement
      if deciding[key].map({ grant.decides(over: $0) }) ?? true { deciding[key] = grant }
    }
    return deciding.values.sorted {
      ($0.appAccountToken, $0.entitlement) < ($1.appAccountToken, $1.entitlement)
    }
  }

  /// `explained`: with each grant's explanation (only explaining needs them; building their
  /// texts for every account costs a projection more than deciding the grants).
  func grants(at time: Timestamp, explained: Bool) -> [EntitlementGrant] {
    grants(in: LedgerMoment(self, at: time), explained: explained)
  }

  private func grants(in moment: LedgerMoment, explained: Bool) -> [EntitlementGrant] {
    applyingConsent(
      subscriptionGrants(in: moment, explained: explained)
        + purchaseGrants(in: moment, explained: explained)
        + consumableGrants(in: moment, explained: explained)
        + seatGrants(in: moment, explained: explained)
        + supportGrantClaims(at: moment.time, explained: explained), at: moment.time,
      explained: explained)
  }

  private func subscriptionGrants(in moment: LedgerMoment, explained: Bool) -> [EntitlementGrant] {
    moment.subscriptions.flatMap { subscription -> [EntitlementGrant] in
      let view = subscription.view
      guard let token = view.appAccountToken, let product = view.productId else { return [] }
      let explanation =
        explained
        ? explanation(
          of: subscription.result, for: subscription.chain.originalTransactionId, at: moment.time)
        : nil
      let end =
        view.status == SubscriptionStatus.billingGracePeriod.rawValue
        ? view.gracePeriodExpiresDate : view.expiresDate
      return catalog.entitlements(of: product).map {
        EntitlementGrant(
          appAccountToken: token, entitlement: $0, active: view.entitled, expiresDate: end,
          source: view.transactionId, rule: .subscription, environment: view.environment,
          appTransactionId: subscription.result.current.facts.appTransactionId,
          explanation: explanation)
      }
    }
  }

  private func purchaseGrants(in moment: LedgerMoment, explained: Bool) -> [EntitlementGrant] {
    moment.purchases.flatMap { purchase -> [EntitlementGrant] in
      let (record, view) = (purchase.record, purchase.view)
      guard let token = view.appAccountToken, let product = view.productId else { return [] }
      let rule: EntitlementRule =
        record.facts.type == .nonRenewingSubscription ? .nonRenewing : .nonConsumable
      let explanation =
        explained ? purchaseExplanation(record, view: view, rule: rule, at: moment.time) : nil
      return catalog.entitlements(of: product).map {
        EntitlementGrant(
          appAccountToken: token, entitlement: $0, active: view.entitled,
          expiresDate: view.expiresDate, source: view.transactionId, rule: rule,
          environment: view.environment, appTransactionId: record.facts.appTransactionId,
          explanation: explanation)
      }
    }
  }

  private func purchaseExplanation(
    _ record: TransactionRecord, view: PurchaseView, rule: EntitlementRule, at time: Timestamp
  ) -> Explanation {
    var events = [record.source]
    var summary = rule.summary
    var sentence = ExplanationWording.purchase(record, entitled: view.entitled, at: time)
    if let revocation = record.revocation { events.append(revocation.source) }
    if record.revocation != nil, let standing = record.standingSource { events.append(standing) }
    if let transfer = ownershipTransfer(
      ofChain: record.facts.originalTransactionId, records: [record], at: time)
    {
      summary += "; T1: the purchase was transferred to this account at \(Self.moment(transfer))"
      sentence +=
        "; the purchase was moved to this account on \(ExplanationWording.day(transfer.linkedAt))"
      events.append(transfer.source)
    }
    return Explanation(
      subject: "purchase \(view.transactionId)",
      answer: view.entitled ? "entitled" : "not entitled", sentence: sentence,
      rule: summary, events: events)
  }

  private static func moment(_ transfer: LinkRecord) -> String {
    transfer.linkedAt?.description ?? "an unknown time"
  }

  private func consumableGrants(in moment: LedgerMoment, explained: Bool) -> [EntitlementGrant] {
    let time = moment.time
    var purchases: [BalanceKey: [TransactionRecord]] = [:]
    for record in state.transactions.values
    where record.facts.type == .consumable && (record.facts.purchaseDate ?? time) <= time {
      guard let product = record.facts.productId else { continue }
      let token = accountToken(
        ofChain: record.facts.originalTransactionId, records: [record], at: time)
      purchases[BalanceKey(appAccountToken: token, productId: product), default: []].append(record)
    }
    var debits: [BalanceKey: [DebitRecord]] = [:]
    for record in state.debits.values where (record.debit.debitedAt ?? time) <= time {
      let key = BalanceKey(
        appAccountToken: record.debit.appAccountToken, productId: record.debit.productId)
      debits[key, default: []].append(record)
    }
    return moment.consumables.flatMap { balance -> [EntitlementGrant] in
      guard let token = balance.appAccountToken else { return [] }
      let key = BalanceKey(appAccountToken: token, productId: balance.productId)
      let records = purchases[key] ?? []
      let latest = records.min(by: Self.newestPurchaseFirst)
      let explanation =
        explained
        ? Self.balanceExplanation(balance, records: records, debits: debits[key], at: time) : nil
      return catalog.entitlements(of: balance.productId).map {
        EntitlementGrant(
          appAccountToken: token, entitlement: $0, active: balance.balance > 0, expiresDate: nil,
          source: latest?.facts.transactionId ?? "", rule: .consumable,
          environment: latest?.facts.terms?.environment?.rawValue,
          appTransactionId: latest?.facts.appTransactionId, explanation: explanation)
      }
    }
  }

  /// The purchases, refunds and debits that make up the balance at `time`: a refund is cited
  /// only when it took units back by then.
  private static func balanceExplanation(
    _ balance: ConsumableView, records: [TransactionRecord], debits: [DebitRecord]?,
    at time: Timestamp
  ) -> Explanation {
    let refunds = records.compactMap(\.revocation).filter { ($0.date ?? time) <= time }
    return Explanation(
      subject: "balance of \(balance.productId)",
      answer:
        "\(balance.balance) = \(balance.purchased) purchased − \(balance.refunded) refunded − \(balance.debited) debited",
      sentence: ExplanationWording.balance(
        balance, purchases: records.count, debits: debits?.count ?? 0),
      rule: EntitlementRule.consumable.summary,
      events: records.map(\.source) + refunds.map(\.source) + (debits ?? []).map(\.source))
  }
}

extension SubscriptionStatus {
  /// The status's name in the reference's words.
  public var name: String {
    switch self {
    case .active: "active"
    case .expired: "expired"
    case .billingRetry: "billing retry"
    case .billingGracePeriod: "billing grace period"
    case .revoked: "revoked"
    default: "unknown \(rawValue)"
    }
  }
}
