/// One auto-renewable purchase chain (`originalTransactionId`) with what the state knows of
/// it, and the §8.2 status at any time.
public struct SubscriptionChain: Hashable, Sendable {
  public var originalTransactionId: String
  /// Its transactions (periods, upgrades), newest purchase first.
  public var transactions: [TransactionRecord]
  public var renewals: RenewalHistory
  public var appleStatus: AppleStatusRecord?

  /// The status at `time` and how it was decided; nil when no period had begun by `time`.
  public struct Evaluation: Hashable, Sendable {
    public var status: SubscriptionStatus
    public var rule: StatusRule
    /// The current period's transaction at `time`.
    public var current: TransactionRecord
    /// The renewal info the rule read, if it read one.
    public var renewal: RenewalRecord?
    public var events: [EventReference]
  }

  public func evaluate(at time: Timestamp) -> Evaluation? {
    guard let current = currentPeriod(at: time) else { return nil }
    var events = [current.source]
    if current.isRevoked(at: time), let revocation = current.revocation {
      events.append(revocation.source)
      return Evaluation(
        status: .revoked, rule: .revoked, current: current, renewal: nil, events: events)
    }
    if let reversal = current.standingSource, current.revocation != nil {
      events.append(reversal)
    }
    if let expires = current.facts.expiresDate, time < expires {
      return Evaluation(
        status: .active, rule: .active, current: current, renewal: nil, events: events)
    }
    let renewal = renewals.inForce(at: time)
    let retry = renewalInRetry(renewal, for: current)
    if let retry {
      events.append(retry.source)
      let inGrace = retry.gracePeriodExpiresDate.map { time < $0 } ?? false
      let rule: StatusRule = inGrace ? .gracePeriod : .billingRetry
      return Evaluation(
        status: rule.status, rule: rule, current: current, renewal: retry, events: events)
    }
    if let renewal { events.append(renewal.source) }
    return Evaluation(
      status: .expired, rule: .expired, current: current, renewal: renewal, events: events)
  }

  /// The period in force at `time`: among transactions bought by then, not replaced by an
  /// upgrade, the one that runs longest (latest `expiresDate`, then latest `purchaseDate`).
  func currentPeriod(at time: Timestamp) -> TransactionRecord? {
    let begun = transactions.filter { ($0.facts.purchaseDate ?? time) <= time }
    let standing = begun.filter { !$0.facts.isUpgraded }
    return (standing.isEmpty ? begun : standing).max { lhs, rhs in
      (
        lhs.facts.expiresDate?.milliseconds ?? .min, lhs.facts.purchaseDate?.milliseconds ?? .min,
        lhs.facts.transactionId
      )
        < (
          rhs.facts.expiresDate?.milliseconds ?? .min,
          rhs.facts.purchaseDate?.milliseconds ?? .min, rhs.facts.transactionId
        )
    }
  }

  /// The newest renewal info, when it says billing retry about this period (one signed
  /// before the period was bought speaks of an earlier lapse).
  private func renewalInRetry(_ renewal: RenewalRecord?, for current: TransactionRecord)
    -> RenewalRecord?
  {
    guard let renewal, renewal.isInBillingRetryPeriod else { return nil }
    if let signed = renewal.signedDate, let bought = current.facts.purchaseDate, signed < bought {
      return nil
    }
    return renewal
  }
}
