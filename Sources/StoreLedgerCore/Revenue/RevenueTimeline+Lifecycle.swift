/// A subscription's lifecycle entries: where it lapsed, retried billing and churned.
extension RevenueTimeline {
  /// Starts, trials, conversions, reactivations, product changes and churn, from the
  /// segments (rules L1–L9).
  static func appendLifecycle(
    _ segments: [RevenueSegment], pieces: [Piece], retries: [RevenueSegment],
    renewals: RenewalHistory, horizon: Timestamp, definition: MetricsDefinition,
    into entries: inout [RevenueEntry]
  ) {
    func entry(_ kind: RevenueEntry.Kind, _ date: Timestamp, _ segment: RevenueSegment) {
      entries.append(
        RevenueEntry(
          kind: kind, date: date, amount: 0, proceeds: 0, transactionId: segment.transactionId,
          originalTransactionId: segment.originalTransactionId, attributes: segment.attributes))
    }
    guard let first = segments.first else { return }
    entry(.newSubscription, first.start, first)
    if first.isTrial { entry(.trialStarted, first.start, first) }
    for (index, segment) in segments.enumerated() {
      let next = segments.indices.contains(index + 1) ? segments[index + 1] : nil
      if let next, next.start == segment.end || continues(segment, into: next) {
        if segment.isTrial, !next.isTrial { entry(.trialConverted, next.start, next) }
        if next.attributes.productId != segment.attributes.productId {
          entry(.productChanged, next.start, next)
        }
        continue
      }
      // Billing retry after the end (rule L8): under StoreLedger's definition the
      // subscription is not lost while Apple retries; a recovery is no return, and a retry
      // that runs out ends it then, for billing.
      var end = segment.end
      var billing = false
      if definition == .storeledger,
        let retry = retry(after: segment, before: next?.start, in: retries)
      {
        if let next, next.start <= retry.end {
          if segment.isTrial, !next.isTrial { entry(.trialConverted, next.start, next) }
          if next.attributes.productId != segment.attributes.productId {
            entry(.productChanged, next.start, next)
          }
          continue
        }
        (end, billing) = (retry.end, true)
      }
      // The segment ends and nothing follows at once: an end, if it has happened.
      if end <= horizon {
        if segment.isTrial {
          entry(.trialExpired, end, segment)
        } else {
          entry(
            billing
              ? .churnBilling
              : churn(of: segment, pieces: pieces, renewals: renewals, before: next?.start),
            end, segment)
        }
      }
      if let next {
        entry(.reactivated, next.start, next)
        if next.isTrial { entry(.trialStarted, next.start, next) }
      }
    }
  }

  /// Whether `next` carries `segment`'s period on after a gap (rule L7): billing grace the
  /// ledger learned of only after the period ended (Apple's failure report is signed after
  /// the end) is the same subscription, neither an end nor a return.
  static func continues(_ segment: RevenueSegment, into next: RevenueSegment) -> Bool {
    next.inGrace && !segment.inGrace && next.transactionId == segment.transactionId
  }

  /// The billing retry that follows `segment`'s end before `next`, joined with the stretches
  /// right after it: from its first start to its last end.
  static func retry(
    after segment: RevenueSegment, before next: Timestamp?, in retries: [RevenueSegment]
  ) -> RevenueSegment? {
    let following = retries.filter { stretch in
      stretch.transactionId == segment.transactionId && stretch.start >= segment.end
        && (next.map { stretch.start < $0 } ?? true)
    }
    guard var joined = following.first else { return nil }
    for stretch in following.dropFirst() where stretch.start == joined.end {
      joined.end = stretch.end
    }
    return joined
  }

  /// Why a paid segment ended (rule L6): a refund of the period in force; else what the
  /// newest renewal info signed during the period (and before any return) says: customer
  /// cancelled or declined a price increase → voluntary; billing error or billing retry →
  /// billing; auto-renew off → voluntary; anything else → other.
  static func churn(
    of segment: RevenueSegment, pieces: [Piece], renewals: RenewalHistory, before next: Timestamp?
  ) -> RevenueEntry.Kind {
    if pieces.contains(where: {
      $0.record.facts.transactionId == segment.transactionId && $0.endedByRefund
        && $0.end == segment.end
    }) {
      return .churnRefund
    }
    let periodStart =
      pieces.first { $0.record.facts.transactionId == segment.transactionId }?.purchased
      ?? segment.start
    let renewal = renewals.records.last {
      guard let signed = $0.signedDate else { return false }
      return signed >= periodStart && (next.map { signed < $0 } ?? true)
    }
    guard let renewal else { return .churnOther }
    switch renewal.facts.expirationIntent {
    case .customerCancelled?, .priceIncreaseNotConsented?: return .churnVoluntary
    case .billingError?: return .churnBilling
    case .some: return .churnOther
    case nil: break
    }
    if renewal.isInBillingRetryPeriod { return .churnBilling }
    if renewal.autoRenewStatus == .off { return .churnVoluntary }
    return .churnOther
  }
}
