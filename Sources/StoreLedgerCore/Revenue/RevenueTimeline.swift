/// The money of one purchase chain, from its folded facts: the segments it was in force
/// (for instants: actives, trials, MRR) and the dated entries (for ranges: revenue, refunds,
/// trials, churn). Pure: the same facts give the same timeline whatever order they came in,
/// so every figure made from timelines is reproducible from the log
/// (projections/revenue.md).
public struct RevenueTimeline: Hashable, Sendable, Codable {
  public var originalTransactionId: String
  /// An auto-renewable subscription (else a one-time purchase, which has no segments).
  public var isSubscription: Bool
  /// When the chain first came into force: its cohort's month.
  public var firstStart: Timestamp?
  public var segments: [RevenueSegment]
  /// Stretches in billing retry (status 3): not in force, not yet lost; valued at the lapsed
  /// period's monthly value (what recovery would bring back).
  public var billingRetry: [RevenueSegment]
  public var entries: [RevenueEntry]

  public init(
    originalTransactionId: String, isSubscription: Bool, firstStart: Timestamp?,
    segments: [RevenueSegment], billingRetry: [RevenueSegment] = [], entries: [RevenueEntry]
  ) {
    self.originalTransactionId = originalTransactionId
    self.isSubscription = isSubscription
    self.firstStart = firstStart
    self.segments = segments
    self.billingRetry = billingRetry
    self.entries = entries
  }

  /// The timelines of every chain `state` holds, with churn counted only for ends at or
  /// before `horizon` (the time the facts are known at: an end after it has not happened).
  public static func timelines(
    of state: LedgerState, horizon: Timestamp, commission: CommissionPolicy,
    definition: MetricsDefinition = .storeledger
  ) -> [RevenueTimeline] {
    var chains: [String: [TransactionRecord]] = [:]
    var timelines: [RevenueTimeline] = []
    for record in state.transactions.values {
      let facts = record.facts
      guard TransactionMoney(facts).isCounted else { continue }
      if facts.isAutoRenewable {
        chains[facts.originalTransactionId, default: []].append(record)
      } else {
        timelines.append(oneTime(record, commission: commission))
      }
    }
    for (id, records) in chains {
      let evidence = state.subscription(id)
      let chain = SubscriptionChain(
        originalTransactionId: id, transactions: records.sorted(by: LedgerView.newestPurchaseFirst),
        renewals: evidence?.renewals ?? RenewalHistory(),
        appleStatuses: evidence?.appleStatuses ?? AppleStatusHistory())
      timelines.append(
        subscription(chain, horizon: horizon, commission: commission, definition: definition))
    }
    return timelines.sorted { $0.originalTransactionId < $1.originalTransactionId }
  }

  // MARK: Subscriptions

  /// One transaction's time in force: its period, cut by an upgrade and by a refund.
  struct Piece {
    var record: TransactionRecord
    var money: TransactionMoney
    var start: Timestamp
    var end: Timestamp
    var monthlyValue: Int64
    /// Ended by a refund of this transaction (not by its period's end).
    var endedByRefund: Bool
    var purchased: Timestamp
    /// Billing grace after the period's end (rule P6).
    var inGrace = false
  }

  static func subscription(
    _ chain: SubscriptionChain, horizon: Timestamp, commission: CommissionPolicy,
    definition: MetricsDefinition
  ) -> RevenueTimeline {
    let id = chain.originalTransactionId
    // The chain holds them newest purchase first (by purchase, then id): oldest first is that
    // order reversed, not another sort.
    let sorted = Array(chain.transactions.reversed())
    let tenures = SubscriptionChain.tenures(of: sorted)
    let periods = BillingPeriod.periods(of: sorted)
    let (graces, retries) = lapses(of: chain, tenures: tenures, periods: periods)
    let pieces = tenures.flatMap { Self.pieces(of: $0, periods: periods) } + graces
    let segments = Self.segments(of: id, pieces)
    // Seats in billing retry are not in use: a stretch holds none.
    let billingRetry = Self.segments(of: id, retries).map { stretch in
      var stretch = stretch
      stretch.seats = 0
      return stretch
    }
    var entries: [RevenueEntry] = []
    appendCharges(
      sorted, tenures: tenures, segments: segments, commission: commission, into: &entries)
    appendLifecycle(
      segments, pieces: pieces, retries: billingRetry, renewals: chain.renewals,
      horizon: horizon, definition: definition, into: &entries)
    entries.sort {
      ($0.date.milliseconds, $0.kind.rawValue, $0.transactionId)
        < ($1.date.milliseconds, $1.kind.rawValue, $1.transactionId)
    }
    return RevenueTimeline(
      originalTransactionId: id, isSubscription: true, firstStart: segments.first?.start,
      segments: segments, billingRetry: billingRetry, entries: entries)
  }

  /// What follows the end of each period that was not replaced (rule P6), as the status fold
  /// answers it (``SubscriptionChain/lapses(of:until:instants:)``): billing grace is in force
  /// with the lapsed period's value (every transaction of a seat period, for a multiseat
  /// one); billing retry is kept apart, not in force.
  static func lapses(
    of chain: SubscriptionChain, tenures: [SubscriptionChain.Tenure],
    periods: [String: BillingPeriod]
  ) -> (grace: [Piece], retry: [Piece]) {
    // Only a period that ran to its end can lapse; most chains never fail a renewal.
    guard
      chain.renewals.records.contains(where: \.isInBillingRetryPeriod)
        || chain.appleStatuses.records.contains(where: {
          $0.status == .billingGracePeriod || $0.status == .billingRetry
        })
    else { return ([], []) }
    let instants = chain.instants()
    var (grace, retry): ([Piece], [Piece]) = ([], [])
    for tenure in tenures where tenure.replacedBy == nil {
      let record = tenure.record
      guard let expires = record.facts.expiresDate, tenure.end == expires else { continue }
      let next = chain.transactions.compactMap(\.facts.purchaseDate).filter { $0 >= expires }.min()
      let period = tenures.filter {
        $0.replacedBy == nil && $0.end == expires
          && ($0.record.facts.transactionId == record.facts.transactionId
            || ($0.record.isSeatAddition && record.isSeatAddition))
      }
      for lapse in chain.lapses(of: record, until: next, instants: instants) {
        for member in period {
          let money = TransactionMoney(member.record.facts)
          let piece = Piece(
            record: member.record, money: money, start: lapse.start, end: lapse.end,
            monthlyValue: BillingPeriod.monthlyValue(
              of: member.record, gross: money.gross, periods: periods),
            endedByRefund: false, purchased: member.start,
            inGrace: lapse.status == .billingGracePeriod)
          if lapse.status == .billingGracePeriod {
            grace.append(piece)
          } else {
            retry.append(piece)
          }
        }
      }
    }
    return (grace, retry)
  }

  /// The transaction's time in force (rules P1–P4): its tenure (from `purchaseDate` to
  /// `expiresDate`, ended early by the purchase that replaced it), with the time a refund was
  /// in force cut out; valued by its billing period (V1–V4).
  static func pieces(
    of tenure: SubscriptionChain.Tenure, periods: [String: BillingPeriod]
  ) -> [Piece] {
    let record = tenure.record
    let facts = record.facts
    let (start, end) = (tenure.start, tenure.end)
    guard facts.expiresDate != nil, end > start else { return [] }
    let money = TransactionMoney(facts)
    let fullValue = BillingPeriod.monthlyValue(of: record, gross: money.gross, periods: periods)
    // The time each refund was in force is cut out (a refund reversed and made again cuts
    // twice); a span that a refund ends says so.
    var spans: [(Timestamp, Timestamp, Bool)] = [(start, end, false)]
    for (revocation, reinstated) in record.refundHistory where revocation.type != .familyRevoke {
      let revoked = max(start, revocation.date ?? start)
      let back = reinstated.map { max($0, revoked) }
      spans = spans.flatMap { span -> [(Timestamp, Timestamp, Bool)] in
        let (from, to, cut) = span
        guard revoked < to, (back ?? to) > from || back == nil else { return [span] }
        var parts: [(Timestamp, Timestamp, Bool)] = []
        if revoked > from { parts.append((from, min(revoked, to), true)) }
        if let back, back < to { parts.append((max(back, from), to, cut)) }
        return parts
      }
    }
    return spans.filter { $0.1 > $0.0 }.map {
      Piece(
        record: record, money: money, start: $0.0, end: $0.1, monthlyValue: fullValue,
        endedByRefund: $0.2, purchased: start)
    }
  }

  /// Cuts the pieces into segments at every start and end: each segment holds the pieces in
  /// force throughout it (rule P5).
  static func segments(of id: String, _ pieces: [Piece]) -> [RevenueSegment] {
    var boundaries = Set<Int64>()
    for piece in pieces {
      boundaries.insert(piece.start.milliseconds)
      boundaries.insert(piece.end.milliseconds)
    }
    let times = boundaries.sorted()
    var segments: [RevenueSegment] = []
    for (from, to) in zip(times, times.dropFirst()) {
      let inForce = pieces.filter { $0.start.milliseconds <= from && $0.end.milliseconds >= to }
      guard
        let main = inForce.max(by: {
          ($0.purchased.milliseconds, $0.record.facts.transactionId)
            < ($1.purchased.milliseconds, $1.record.facts.transactionId)
        })
      else { continue }
      let facts = main.record.facts
      let segment = RevenueSegment(
        originalTransactionId: id, transactionId: facts.transactionId,
        start: Timestamp(milliseconds: from), end: Timestamp(milliseconds: to),
        isTrial: inForce.allSatisfy(\.money.isTrial),
        monthlyValue: inForce.reduce(0) { $0 + $1.monthlyValue },
        seats: inForce.reduce(0) {
          $0 + ($1.record.facts.plan?.seats(quantity: $1.record.facts.quantity) ?? 0)
        },
        inGrace: inForce.allSatisfy(\.inGrace),
        attributes: MetricsAttributes(facts))
      // Pieces of one transaction cut at a boundary nothing changed at join again.
      if var last = segments.last, last.end == segment.start,
        last.transactionId == segment.transactionId, last.monthlyValue == segment.monthlyValue,
        last.seats == segment.seats, last.isTrial == segment.isTrial,
        last.inGrace == segment.inGrace
      {
        last.end = segment.end
        segments[segments.count - 1] = last
      } else {
        segments.append(segment)
      }
    }
    return segments
  }

  /// Charges and refunds (rules G1–G6, R1–R4, U1), with the commission each period earns:
  /// reduced once the chain has a year of paid service before the period, counted over
  /// paid segments and started again after a gap of more than 60 days (rule C2).
  static func appendCharges(
    _ records: [TransactionRecord], tenures: [SubscriptionChain.Tenure],
    segments: [RevenueSegment], commission: CommissionPolicy, into entries: inout [RevenueEntry]
  ) {
    let upgraded = Dictionary(
      tenures.filter(\.endedByUpgrade).map { ($0.record.facts.transactionId, $0) },
      uniquingKeysWith: { first, _ in first })
    for record in records {
      let facts = record.facts
      let money = TransactionMoney(facts)
      guard let bought = facts.purchaseDate else { continue }
      let attributes = MetricsAttributes(facts)
      let rate = commission.rate(paidServiceBefore: paidService(segments, before: bought))
      func entry(
        _ kind: RevenueEntry.Kind, _ date: Timestamp, _ amount: Int64,
        reason: ChargeReason? = nil
      ) {
        entries.append(
          RevenueEntry(
            kind: kind, date: date, amount: amount,
            proceeds: commission.proceeds(
              of: amount, storefront: attributes.storefront, rate: rate),
            transactionId: facts.transactionId,
            originalTransactionId: facts.originalTransactionId, attributes: attributes,
            reason: reason))
      }
      if money.gross > 0 {
        let reason = ChargeReason.of(record, among: tenures)
        entry(reason.entryKind, bought, money.gross, reason: reason)
      }
      for refund in refunds(of: record, money: money) { entry(refund.0, refund.1, refund.2) }
      if let tenure = upgraded[facts.transactionId],
        let end = facts.expiresDate, money.gross > 0, !record.isRevoked
      {
        // The unused share of the period, refunded prorated by Apple (rule U1): another
        // product bought inside it replaced it (Apple's `isUpgraded`, which only history
        // shows, confirms it when it comes).
        let replacedAt = tenure.end
        let unused = Int128(end.milliseconds - replacedAt.milliseconds)
        let whole = Int128(end.milliseconds - bought.milliseconds)
        let credit = Int64(CommissionPolicy.divideRounded(Int128(money.gross) * unused, whole))
        if credit > 0 { entry(.upgradeCredit, replacedAt, credit) }
      }
    }
  }

  /// Paid time in force before `time`, started again after a gap of more than 60 days.
  static func paidService(_ segments: [RevenueSegment], before time: Timestamp) -> Int64 {
    var total: Int64 = 0
    var lastEnd: Timestamp?
    for segment in segments where segment.start < time {
      if let lastEnd,
        segment.start.milliseconds - lastEnd.milliseconds
          > CommissionPolicy.serviceGapLimit
      {
        total = 0
      }
      if !segment.isTrial {
        total += min(segment.end, time).milliseconds - segment.start.milliseconds
      }
      lastEnd = max(lastEnd ?? segment.end, segment.end)
    }
    if let lastEnd, time.milliseconds - lastEnd.milliseconds > CommissionPolicy.serviceGapLimit {
      return 0
    }
    return total
  }
}
