/// One auto-renewable purchase chain (`originalTransactionId`) with what the state knows of
/// it, and the §8.2 status at any time.
public struct SubscriptionChain: Hashable, Sendable {
  public var originalTransactionId: String
  /// Its transactions (periods, upgrades), newest purchase first.
  public var transactions: [TransactionRecord]
  public var renewals: RenewalHistory
  public var appleStatuses: AppleStatusHistory

  /// How long Apple retries a failed renewal (reference §8.4): after it the subscription is
  /// expired, whatever the last renewal info said.
  public static let billingRetryLimit: Int64 = 60 * 86_400_000
  /// The same for a monthly plan with a 12-month commitment (reference §8.12): 90 days, after
  /// which the commitment ends.
  public static let commitmentRetryLimit: Int64 = 90 * 86_400_000

  /// The status at `time` and how it was decided; nil when no period had begun by `time`.
  public struct Evaluation: Hashable, Sendable {
    public var status: SubscriptionStatus
    public var rule: StatusRule
    /// The current period's transaction at `time`.
    public var current: TransactionRecord
    /// The renewal info the rule read, if it read one.
    public var renewal: RenewalRecord?
    public var events: [EventReference]
    /// Apple's signed status the answer rests on (rule S0), when the log explains nothing else.
    public var reported: AppleStatusRecord?
    /// The product in force: the current period's, or the one Apple reported with its status.
    public var productId: String?
    /// The end of the current period, or of Apple's evidence (its renewal info's renewalDate).
    public var expiresDate: Timestamp?
    /// Rule S0: when Apple's word stops deciding (``SubscriptionChain/evidenceEnd(of:)``),
    /// never before the report itself.
    public var evidenceEnds: Timestamp?
  }

  /// The newest status Apple had signed by `time`.
  public func appleStatus(at time: Timestamp) -> AppleStatusRecord? {
    appleStatuses.inForce(at: time)
  }

  public func evaluate(at time: Timestamp) -> Evaluation? {
    guard let derived = evaluateFromLog(at: time) else { return nil }
    guard let reported = appleStatus(at: time), time < evidenceEnd(of: reported),
      !explains(reported)
    else { return derived }
    var result = derived
    result.status = reported.status
    result.rule = .appleReported
    result.reported = reported
    result.renewal = nil
    result.events = [reported.source]
    result.productId = reported.renewal?.productId ?? derived.productId
    result.expiresDate = reported.renewal?.renewalDate ?? derived.expiresDate
    result.evidenceEnds = evidenceEnd(of: reported)
    return result
  }

  /// The §8.2 rules S1–S5 over the periods the log holds.
  func evaluateFromLog(at time: Timestamp) -> Evaluation? {
    guard let current = currentPeriod(at: time) else { return nil }
    var events = [current.source]
    func answer(_ rule: StatusRule, renewal: RenewalRecord? = nil) -> Evaluation {
      Evaluation(
        status: rule.status, rule: rule, current: current, renewal: renewal, events: events,
        reported: nil, productId: current.facts.productId, expiresDate: current.facts.expiresDate)
    }
    if current.isRevoked(at: time), let revocation = current.revocation {
      events.append(revocation.source)
      return answer(.revoked)
    }
    if let reversal = current.standingSource, current.revocation != nil {
      events.append(reversal)
    }
    if let expires = current.facts.expiresDate, time < expires { return answer(.active) }
    let renewal = renewals.inForce(at: time)
    if let retry = renewalInRetry(renewal, for: current, at: time) {
      events.append(retry.source)
      // Commitment plans get no Billing Grace Period (§8.12, rule P2).
      let inGrace =
        !current.isCommitment && (retry.gracePeriodExpiresDate.map { time < $0 } ?? false)
      return answer(inGrace ? .gracePeriod : .billingRetry, renewal: retry)
    }
    if let renewal { events.append(renewal.source) }
    return answer(.expired, renewal: renewal)
  }

  /// Whether the log holds a period that explains Apple's status at the moment it was signed.
  private func explains(_ reported: AppleStatusRecord) -> Bool {
    guard let signed = reported.signedDate else { return true }
    return evaluateFromLog(at: signed)?.status == reported.status
  }

  /// When Apple's word stops being evidence: at the end its own fields give
  /// (``reportedEnd(of:)``), at the next evidence about the chain signed by another event, or
  /// when its own renewal info, signed a moment after it, lets the log agree, whichever comes
  /// first; never before the report was signed.
  public func evidenceEnd(of reported: AppleStatusRecord) -> Timestamp {
    let signed = reported.signedDate?.milliseconds ?? .min
    var end = max(signed, reportedEnd(of: reported)?.milliseconds ?? .max)
    func consider(_ date: Timestamp?, _ source: EventReference) {
      guard let date = date?.milliseconds, date > signed, date < end,
        source != reported.source
      else { return }
      end = date
    }
    for record in transactions { consider(record.facts.signedDate, record.source) }
    for record in renewals.records { consider(record.signedDate, record.source) }
    if let next = appleStatuses.next(after: reported) { consider(next.signedDate, next.source) }
    // The renewal info the report came with, when Apple signed it a moment later: from then
    // on the log holds what the report said, and decides if it agrees.
    if let own = reported.renewal?.signedDate?.milliseconds, own > signed, own < end,
      evaluateFromLog(at: Timestamp(milliseconds: own))?.status == reported.status
    {
      end = own
    }
    return Timestamp(milliseconds: end)
  }

  /// The end Apple's own fields give its status (reference §8.2, §8.4, §8.12): active (1)
  /// until the renewal info's `renewalDate`; billing grace (4) until `gracePeriodExpiresDate`;
  /// billing retry (3) until retry runs out, 60 days after the lapsed period's end
  /// (`renewalDate`), 90 for a commitment plan. A grace report without its date lasts no
  /// longer than retry could. Expired (2) and revoked (5) have no end of their own: they
  /// stand until the next evidence. A field that is missing gives no time at all (nil ends
  /// the word as it was signed), so a report never holds longer than Apple said.
  func reportedEnd(of reported: AppleStatusRecord) -> Timestamp? {
    let renewal = reported.renewal
    let commitment =
      renewal?.plan?.billingPlanType == .monthly || transactions.contains { $0.isCommitment }
    let retryEnds = renewal?.renewalDate.map {
      Timestamp(
        milliseconds: $0.milliseconds
          + (commitment ? Self.commitmentRetryLimit : Self.billingRetryLimit))
    }
    switch reported.status {
    case .active: return renewal?.renewalDate ?? reported.signedDate
    case .billingGracePeriod:
      return renewal?.gracePeriodExpiresDate ?? retryEnds ?? reported.signedDate
    case .billingRetry: return retryEnds ?? reported.signedDate
    default: return Timestamp(milliseconds: .max)
    }
  }

  /// The period in force at `time` (reference §8.2–8.3): among transactions bought by then,
  /// the one bought last. A newer transaction that starts before the previous period ends
  /// replaces it at once (an upgrade, even to a shorter period), so a replaced period never
  /// returns. `isUpgraded` is not needed for that (Apple never notifies it; it only shows in
  /// history) and only breaks ties: before its upgrade a period was current, upgraded or not.
  ///
  /// A period the purchaser added seats to has several transactions (`SEAT_ADDITION`, none
  /// replacing another): it is revoked only when every one of them is, so a revoked one stands
  /// aside for the newest of its period that is not (rule M1).
  func currentPeriod(at time: Timestamp) -> TransactionRecord? {
    var best: TransactionRecord?
    for record in transactions where (record.facts.purchaseDate ?? time) <= time {
      guard let incumbent = best else {
        best = record
        continue
      }
      if Self.replaces(record, incumbent) { best = record }
    }
    guard let chosen = best, chosen.isSeatAddition, chosen.isRevoked(at: time) else { return best }
    return period(of: chosen, at: time).first { !$0.isRevoked(at: time) } ?? chosen
  }

  /// One transaction's time as its chain's period: from its `purchaseDate` until its
  /// `expiresDate`, or until the later purchase that replaced it, whichever comes first. The
  /// one model of what is in force: the status fold's current period at T
  /// (``currentPeriod(at:)``) and the revenue timeline's time in force are both read from the
  /// same order of purchases (``replaces(_:_:)``).
  public struct Tenure: Hashable, Sendable {
    public var record: TransactionRecord
    public var start: Timestamp
    public var end: Timestamp
    /// The purchase that ended the period before its `expiresDate` (an upgrade, a
    /// crossgrade): the replacement decides, whether or not Apple's `isUpgraded` snapshot of
    /// this transaction ever arrives (it only confirms).
    public var replacedBy: TransactionRecord?

    /// Replaced by a purchase of another product (an upgrade, a same-duration crossgrade),
    /// or marked `isUpgraded` by Apple: what earns an upgrade credit and makes the
    /// replacement a purchase. A renewal of the same product bought a little before the
    /// period's end replaces it too, and is neither.
    public var endedByUpgrade: Bool {
      guard let replacedBy else { return false }
      return replacedBy.facts.productId != record.facts.productId || record.facts.isUpgraded
    }
  }

  /// The tenures of `transactions` (one chain's), oldest purchase first. A transaction without
  /// a purchase or an expiry date, or whose period is empty, has none. Seat additions of one
  /// period do not replace one another: they are in force together (rule M1, revenue P5).
  public static func tenures(of transactions: [TransactionRecord]) -> [Tenure] {
    let ordered = transactions.sorted { replaces($1, $0) }
    var tenures: [Tenure] = []
    for (index, record) in ordered.enumerated() {
      let facts = record.facts
      guard let start = facts.purchaseDate, let expires = facts.expiresDate, expires > start
      else { continue }
      let replacement = ordered[(index + 1)...].first { later in
        !(later.isSeatAddition && later.facts.expiresDate == facts.expiresDate)
          && later.facts.transactionId != facts.transactionId
      }
      if let replacement, let bought = replacement.facts.purchaseDate, bought < expires {
        tenures.append(
          Tenure(record: record, start: start, end: max(start, bought), replacedBy: replacement))
      } else {
        tenures.append(Tenure(record: record, start: start, end: expires, replacedBy: nil))
      }
    }
    return tenures
  }

  /// The transactions of `current`'s period bought by `time`, newest purchase first: the
  /// seat additions that end with it (our reading: transactions added mid-period end when the
  /// period does; Apple names no field that groups them), else `current` alone.
  public func period(of current: TransactionRecord, at time: Timestamp) -> [TransactionRecord] {
    guard current.isSeatAddition else { return [current] }
    return transactions.filter {
      $0.isSeatAddition && $0.facts.expiresDate == current.facts.expiresDate
        && ($0.facts.purchaseDate ?? time) <= time
    }
  }

  /// Whether `record` replaces `incumbent` as the chain's period once both are bought: the
  /// later purchase; ties: not `isUpgraded`, then the later `expiresDate`, then the greater
  /// `transactionId`.
  static func replaces(_ record: TransactionRecord, _ incumbent: TransactionRecord)
    -> Bool
  {
    let (new, old) = (record.facts, incumbent.facts)
    let left = (
      new.purchaseDate?.milliseconds ?? .min, new.isUpgraded ? 0 : 1,
      new.expiresDate?.milliseconds ?? .min, new.transactionId
    )
    let right = (
      old.purchaseDate?.milliseconds ?? .min, old.isUpgraded ? 0 : 1,
      old.expiresDate?.milliseconds ?? .min, old.transactionId
    )
    return left > right
  }

  /// The renewal info in force, when it says billing retry about this period (one signed
  /// before the period was bought speaks of an earlier lapse) and the 60 days of retry have
  /// not run out.
  private func renewalInRetry(
    _ renewal: RenewalRecord?, for current: TransactionRecord, at time: Timestamp
  ) -> RenewalRecord? {
    guard let renewal, renewal.isInBillingRetryPeriod else { return nil }
    if let signed = renewal.signedDate, let bought = current.facts.purchaseDate, signed < bought {
      return nil
    }
    let limit = current.isCommitment ? Self.commitmentRetryLimit : Self.billingRetryLimit
    if let expires = current.facts.expiresDate, time.milliseconds >= expires.milliseconds + limit {
      return nil
    }
    return renewal
  }
}
