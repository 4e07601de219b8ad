/// A span of time over which every answer of a ``LedgerView`` stays the same: `from` (included)
/// to `until` (excluded); nil ends are unbounded. A stored answer computed at any instant of
/// the span is the answer at every other instant of it.
public struct StableInterval: Hashable, Sendable, Codable {
  public var from: Timestamp?
  public var until: Timestamp?

  public init(from: Timestamp?, until: Timestamp?) {
    self.from = from
    self.until = until
  }

  public func contains(_ time: Timestamp) -> Bool {
    (from.map { $0 <= time } ?? true) && (until.map { time < $0 } ?? true)
  }
}

extension LedgerView {
  /// The stable interval around `time`. The views only ever compare T with instants the state
  /// holds (`instant <= T` or `T < instant`), so each answer can change only at one of them:
  /// between the nearest one at or before `time` and the nearest one after, nothing changes.
  public func stableInterval(around time: Timestamp) -> StableInterval {
    var bounds = IntervalBounds(time: time.milliseconds)
    for record in state.transactions.values {
      let facts = record.facts
      bounds.note(facts.purchaseDate, facts.expiresDate, record.revocation?.date, facts.signedDate)
      if let expires = facts.expiresDate,
        state.subscriptions[facts.originalKey]?.renewals.records.contains(
          where: \.isInBillingRetryPeriod)
          == true
      {
        let limit =
          record.isCommitment
          ? SubscriptionChain.commitmentRetryLimit : SubscriptionChain.billingRetryLimit
        bounds.note(Timestamp(milliseconds: expires.milliseconds + limit))
      }
      if record.revocation != nil { bounds.note(record.standingSince, record.reinstatedAt) }
      if let productId = facts.productId {
        bounds.note(catalog.nonRenewingEnd(of: productId, purchasedAt: facts.purchaseDate))
      }
    }
    for evidence in state.subscriptions.values {
      for renewal in evidence.renewals.records {
        bounds.note(renewal.signedDate, renewal.gracePeriodExpiresDate, renewal.facts.renewalDate)
      }
      // Apple's word ends where its own fields say (rule S0): an extra bound only shortens
      // the span, so both retry limits are noted.
      for status in evidence.appleStatuses.records {
        let renewalDate = status.renewal?.renewalDate?.milliseconds
        bounds.note(
          status.signedDate, status.renewal?.renewalDate, status.renewal?.gracePeriodExpiresDate,
          renewalDate.map { Timestamp(milliseconds: $0 + SubscriptionChain.billingRetryLimit) },
          renewalDate.map { Timestamp(milliseconds: $0 + SubscriptionChain.commitmentRetryLimit) })
      }
    }
    for record in state.debits.values { bounds.note(record.debit.debitedAt) }
    for claim in state.seatClaims.values {
      bounds.note(claim.claimedAt, claim.released?.occurredAt, claim.refused?.occurredAt)
    }
    for unclaim in state.seatUnclaims.values { bounds.note(unclaim.unclaimedAt) }
    // An operator's grant holds from its start (or when it was given) to its end or its ending.
    for grant in state.supportGrants.values {
      bounds.note(
        grant.started?.occurredAt, grant.started?.startsAt, grant.started?.endsAt,
        grant.ended?.occurredAt)
    }
    // A transfer gives its chain to another account from its moment on.
    for transfers in state.transfers.values {
      for transfer in transfers { bounds.note(transfer.linkedAt) }
    }
    return StableInterval(
      from: bounds.lower.map(Timestamp.init(milliseconds:)),
      until: bounds.upper.map(Timestamp.init(milliseconds:)))
  }
}

/// The nearest instants at or before, and after, one time.
private struct IntervalBounds {
  let time: Int64
  var lower: Int64?
  var upper: Int64?

  mutating func note(_ instants: Timestamp?...) {
    for case let instant? in instants {
      let value = instant.milliseconds
      if value <= time {
        lower = max(lower ?? value, value)
      } else {
        upper = min(upper ?? value, value)
      }
    }
  }
}
