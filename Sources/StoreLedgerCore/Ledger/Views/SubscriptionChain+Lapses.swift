extension SubscriptionChain {
  /// Time after a period's end that the status fold answers billing grace (4) or billing
  /// retry (3) about that period: what revenue counts as still in force (grace) or as not yet
  /// lost (retry). Read from ``evaluate(at:)`` itself, so revenue and the fold cannot differ.
  public struct Lapse: Hashable, Sendable {
    public var status: SubscriptionStatus
    public var start: Timestamp
    public var end: Timestamp
  }

  /// Every instant at which the fold's answer about this chain can change: the fold only
  /// compares T with these (`instant <= T` or `T < instant`), so between two neighbours its
  /// answer is the same. Sorted, without repeats.
  public func instants() -> [Timestamp] {
    var all = Set<Int64>()
    func note(_ dates: Timestamp?...) {
      for date in dates { if let date { all.insert(date.milliseconds) } }
    }
    for record in transactions {
      let facts = record.facts
      note(facts.purchaseDate, facts.expiresDate, facts.signedDate, record.standingSince)
      note(record.revocation?.date, record.revocation?.signedDate)
      for (revocation, reinstated) in record.refundHistory { note(revocation.date, reinstated) }
      if let expires = facts.expiresDate?.milliseconds {
        let limit = record.isCommitment ? Self.commitmentRetryLimit : Self.billingRetryLimit
        all.insert(expires + limit)
      }
    }
    for renewal in renewals.records {
      note(renewal.signedDate, renewal.gracePeriodExpiresDate, renewal.facts.renewalDate)
    }
    for reported in appleStatuses.records {
      note(reported.signedDate, reportedEnd(of: reported))
    }
    return all.sorted().map(Timestamp.init(milliseconds:))
  }

  /// The lapses of `record`'s period: from its `expiresDate` until `limit` (the chain's next
  /// purchase, which becomes the current period), the stretches the fold answers grace or
  /// retry with `record` as the current period. `instants` is ``instants()``.
  public func lapses(of record: TransactionRecord, until limit: Timestamp?, instants: [Timestamp])
    -> [Lapse]
  {
    guard let expires = record.facts.expiresDate else { return [] }
    let end = limit ?? Timestamp(milliseconds: .max)
    guard expires < end else { return [] }
    // The instants inside the window, each starting a stretch with one answer.
    var starts = [expires]
    var index = Self.firstIndex(in: instants, after: expires)
    while index < instants.count, instants[index] < end {
      starts.append(instants[index])
      index += 1
    }
    var lapses: [Lapse] = []
    for (position, start) in starts.enumerated() {
      let stop = position + 1 < starts.count ? starts[position + 1] : end
      guard let evaluation = evaluate(at: start),
        evaluation.current.facts.transactionId == record.facts.transactionId,
        evaluation.status == .billingGracePeriod || evaluation.status == .billingRetry
      else { continue }
      if var last = lapses.last, last.end == start, last.status == evaluation.status {
        last.end = stop
        lapses[lapses.count - 1] = last
      } else {
        lapses.append(Lapse(status: evaluation.status, start: start, end: stop))
      }
    }
    // A stretch the instants leave open (none should) ends when retry would.
    let retryLimit = record.isCommitment ? Self.commitmentRetryLimit : Self.billingRetryLimit
    let latest = Timestamp(milliseconds: expires.milliseconds + retryLimit)
    return lapses.compactMap { lapse in
      var lapse = lapse
      if lapse.end.milliseconds == .max { lapse.end = max(lapse.start, latest) }
      return lapse.end > lapse.start ? lapse : nil
    }
  }

  /// The index of the first instant after `time` (binary search over sorted instants).
  private static func firstIndex(in instants: [Timestamp], after time: Timestamp) -> Int {
    var (low, high) = (0, instants.count)
    while low < high {
      let middle = (low + high) / 2
      if instants[middle] <= time { low = middle + 1 } else { high = middle }
    }
    return low
  }
}
