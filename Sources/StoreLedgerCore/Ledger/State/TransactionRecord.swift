/// Everything known about one transaction, merged so that any order of the same evidence
/// gives the same record: the newest snapshot, the newest revocation seen on it, and the
/// newest evidence that it is not (or no longer) revoked.
public struct TransactionRecord: Sendable {
  // Every field is a reference to an event or an integer, so that the fold's largest map
  // stays small (fewer pages to touch); the facts are read through the events.
  /// The event that brought the newest snapshot by `signedDate`.
  private var input: FoldInput
  /// The snapshot's `signedDate` in milliseconds (`Int64.min` when absent), kept beside the
  /// reference: a newer snapshot is told from an older one without loading the record's facts.
  private var signedMilliseconds: Int64
  /// The event that brought the newest snapshot carrying a `revocationDate`.
  private var revocationInput: FoldInput?
  /// Refunds before the newest one, when a refund was reversed and the purchase refunded
  /// again: the newest snapshot of each other `revocationDate` (empty for nearly every
  /// transaction). Revenue counts each refund; entitlement reads the newest only.
  private var otherRevocationInputs: [FoldInput] = []
  /// `standingSince` in milliseconds, `Int64.min` when there is no such evidence.
  private var standingMilliseconds: Int64 = .min
  private var standingInput: FoldInput?
  /// The oldest standing evidence's `signedDate` (`Int64.max` when none), and those between the
  /// oldest and the newest, sorted (usually none: most transactions are seen once or twice).
  /// A revocation is undone by the first standing evidence signed after it, not by the newest:
  /// a replay that signs the transaction months later must not stretch a reversed refund.
  private var oldestStandingMilliseconds: Int64 = .max
  private var middleStandingMilliseconds: [Int64] = []
  /// The backend's forward of the transaction that named the greatest account token.
  private var forwardedInput: FoldInput?
  /// Seat refunds of a multiseat purchase: each `revokedSeatQuantity` seen, with the oldest
  /// `signedDate` that showed it, by quantity (empty for every other transaction). The
  /// newest snapshot alone cannot tell when seats were refunded: it may be signed later.
  private var seatRefundMilliseconds: [Int32: Int64] = [:]

  /// The newest snapshot by `signedDate`.
  public var facts: TransactionFacts { input.transactionFacts! }
  /// The event that brought the newest snapshot.
  public var source: EventReference { input.reference }
  /// The newest snapshot that carried a `revocationDate`, kept after a reversal clears it.
  public var revocation: Revocation? { revocationInput.map(Revocation.init) }
  /// The newest `signedDate` of evidence that the transaction stands: a snapshot without
  /// `revocationDate`, or a `REFUND_REVERSED` notification.
  public var standingSince: Timestamp? {
    standingInput == nil ? nil : Timestamp(milliseconds: standingMilliseconds)
  }
  /// The event that brought the newest standing evidence.
  public var standingSource: EventReference? { standingInput?.reference }
  /// The account the backend named when it forwarded the transaction (if Apple's has none).
  public var forwardedAccountToken: String? { forwardedInput?.forwardedToken }
  /// One of several transactions of a period the purchaser added seats to.
  public var isSeatAddition: Bool {
    facts.plan?.additionalTransactionReason == .seatAddition
  }
  /// A month of a monthly plan with a 12-month commitment.
  public var isCommitment: Bool { facts.plan?.isCommitment ?? false }

  public struct Revocation: Hashable, Sendable {
    let input: FoldInput
    var facts: TransactionFacts { input.transactionFacts! }
    public var date: Timestamp? { facts.revocationDate }
    public var reason: RevocationReason? { facts.revocationReason }
    public var type: RevocationType? { facts.revocationType }
    public var percentage: Int32? { facts.revocationPercentage }
    public var signedDate: Timestamp? { facts.signedDate }
    public var source: EventReference { input.reference }

    public static func == (lhs: Self, rhs: Self) -> Bool {
      lhs.input == rhs.input && lhs.facts == rhs.facts
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(facts) }
  }

  /// A record of the snapshot `source` carries.
  init(source: FoldInput) {
    self.input = source
    self.signedMilliseconds = source.transactionFacts!.signedMilliseconds
    absorbRevocationEvidence(from: source)
  }

  /// Merges the snapshot `source` carries (of the same transaction).
  mutating func absorb(_ source: FoldInput) {
    if source === input { return }
    let snapshot = source.transactionFacts!
    if replaces(snapshot, from: source) {
      input = source
      signedMilliseconds = snapshot.signedMilliseconds
    }
    absorbRevocationEvidence(from: source)
  }

  private func replaces(_ snapshot: TransactionFacts, from source: FoldInput) -> Bool {
    if snapshot.signedMilliseconds != signedMilliseconds {
      return snapshot.signedMilliseconds > signedMilliseconds
    }
    let facts = self.facts
    return snapshot.supersedes(facts) || (snapshot == facts && source.ordersAfter(input))
  }

  /// A `REFUND_REVERSED` notification signed at `signedDate`.
  mutating func absorbReversal(signedDate: Timestamp?, source: FoldInput) {
    noteStanding(signedDate, source: source)
  }

  /// A forward by the backend naming an account token.
  mutating func absorbForward(_ source: FoldInput) {
    // Several forwards with different tokens: the greatest wins, whatever the order.
    guard let token = source.forwardedToken else { return }
    if forwardedInput?.forwardedToken.map({ token > $0 }) ?? true { forwardedInput = source }
  }

  private mutating func absorbRevocationEvidence(from source: FoldInput) {
    let snapshot = source.transactionFacts!
    if let seats = snapshot.plan?.multiSeat?.revokedSeatQuantity, seats > 0 {
      let signed = snapshot.signedMilliseconds
      if seatRefundMilliseconds[seats].map({ signed < $0 }) ?? true {
        seatRefundMilliseconds[seats] = signed
      }
    }
    guard snapshot.revocationDate != nil else {
      noteStanding(snapshot.signedDate, source: source)
      return
    }
    let candidate = Revocation(input: source)
    guard let current = revocation else {
      revocationInput = source
      return
    }
    if candidate.date == current.date {
      if candidate.isNewer(than: current) { revocationInput = source }
      return
    }
    // Another refund: the newest (by signing) stays the one in force; the other is kept.
    let (kept, other) =
      candidate.isNewer(than: current) ? (source, current.input) : (current.input, source)
    revocationInput = kept
    // The refund in force is not also one of the others (an older snapshot of its date).
    let keptDate = kept.transactionFacts?.revocationDate
    otherRevocationInputs.removeAll { $0.transactionFacts?.revocationDate == keptDate }
    let otherRevocation = Revocation(input: other)
    if let index = otherRevocationInputs.firstIndex(where: {
      $0.transactionFacts?.revocationDate == otherRevocation.date
    }) {
      if otherRevocation.isNewer(than: Revocation(input: otherRevocationInputs[index])) {
        otherRevocationInputs[index] = other
      }
    } else {
      otherRevocationInputs.append(other)
    }
  }

  private mutating func noteStanding(_ signedDate: Timestamp?, source: FoldInput) {
    guard let signedDate else { return }
    let milliseconds = signedDate.milliseconds
    rememberStanding(milliseconds)
    let newer = standingInput == nil || milliseconds > standingMilliseconds
    let sameButPreferred =
      standingMilliseconds == milliseconds && standingInput.map { source.ordersAfter($0) } ?? false
    if newer || sameButPreferred {
      standingMilliseconds = milliseconds
      standingInput = source
    }
  }

  /// Adds one standing instant to the oldest / middle / newest set (newest is kept by
  /// `noteStanding` itself, with its event).
  private mutating func rememberStanding(_ milliseconds: Int64) {
    let newest = standingInput == nil ? nil : standingMilliseconds
    let oldest = oldestStandingMilliseconds
    if milliseconds == oldest || milliseconds == newest { return }
    var displaced: Int64?
    if milliseconds < oldest {
      if oldest != .max, oldest != newest { displaced = oldest }
      oldestStandingMilliseconds = milliseconds
    } else if let newest, milliseconds > newest {
      if newest != oldest { displaced = newest }
    } else {
      displaced = milliseconds
    }
    guard let displaced else { return }
    var index = middleStandingMilliseconds.endIndex
    while index > 0, middleStandingMilliseconds[index - 1] > displaced { index -= 1 }
    if index > 0, middleStandingMilliseconds[index - 1] == displaced { return }
    middleStandingMilliseconds.insert(displaced, at: index)
  }

  /// Every refund of this purchase, oldest signed first, each with when it was undone (the
  /// first evidence that the purchase stands again signed after it and before the next
  /// refund; nil while it stands).
  public var refundHistory: [(revocation: Revocation, reinstatedAt: Timestamp?)] {
    guard let newest = revocation else { return [] }
    let all = (otherRevocationInputs.map(Revocation.init) + [newest]).sorted {
      $1.isNewer(than: $0)
    }
    return all.enumerated().map { index, refund in
      let signed = refund.signedDate?.milliseconds ?? .min
      guard let standing = firstStanding(onOrAfter: signed) else { return (refund, nil) }
      if index + 1 < all.count,
        standing >= all[index + 1].signedDate?.milliseconds ?? .max
      {
        return (refund, nil)
      }
      return (refund, Timestamp(milliseconds: standing))
    }
  }

  /// When seats of this purchase were refunded and how many each time: the first time each
  /// larger `revokedSeatQuantity` was signed, oldest first (a quantity signed earlier than a
  /// smaller one counts from then).
  public var seatRefunds: [(date: Timestamp, seats: Int64)] {
    guard !seatRefundMilliseconds.isEmpty else { return [] }
    var refunds: [(date: Timestamp, seats: Int64)] = []
    var refunded: Int64 = 0
    for (quantity, signed) in seatRefundMilliseconds.sorted(by: {
      ($0.value, $0.key) < ($1.value, $1.key)
    })
    where Int64(quantity) > refunded {
      refunds.append((Timestamp(milliseconds: signed), Int64(quantity) - refunded))
      refunded = Int64(quantity)
    }
    return refunds
  }

  /// When the newest revocation was undone: the first standing evidence signed at or after
  /// it; nil when it stands (or there is no revocation).
  public var reinstatedAt: Timestamp? {
    guard let revocation else { return nil }
    return firstStanding(onOrAfter: revocation.signedDate?.milliseconds ?? .min)
      .map(Timestamp.init(milliseconds:))
  }

  /// The first standing evidence signed at or after `milliseconds`.
  private func firstStanding(onOrAfter milliseconds: Int64) -> Int64? {
    guard standingInput != nil, standingMilliseconds >= milliseconds else { return nil }
    if oldestStandingMilliseconds >= milliseconds { return oldestStandingMilliseconds }
    return middleStandingMilliseconds.first { $0 >= milliseconds } ?? standingMilliseconds
  }

  /// Revoked as far as the evidence goes: the newest revocation is newer than every sign
  /// that the transaction stands (a reversal signed at the same moment wins).
  public var isRevoked: Bool {
    guard let revocation else { return false }
    guard let standing = standingSince else { return true }
    return (revocation.signedDate ?? Timestamp(milliseconds: .min)) > standing
  }

  /// Revoked at `time`: the newest revocation took effect at or before `time`, and the
  /// evidence that the transaction stands again (a reversal, or a later snapshot without
  /// revocation) is either older than the revocation or not yet signed at `time`: a refund
  /// reversed later was still in force in between.
  public func isRevoked(at time: Timestamp) -> Bool {
    guard let revocation, (revocation.date ?? time) <= time else { return false }
    let revoked = revocation.signedDate?.milliseconds ?? .min
    guard let reinstated = firstStanding(onOrAfter: revoked) else { return true }
    return time.milliseconds < reinstated
  }
}

extension TransactionRecord.Revocation {
  fileprivate func isNewer(than other: Self) -> Bool {
    let mine = (signedDate?.milliseconds ?? .min, date?.milliseconds ?? .min)
    let theirs = (other.signedDate?.milliseconds ?? .min, other.date?.milliseconds ?? .min)
    if mine != theirs { return mine > theirs }
    let left = (type?.rawValue ?? "", Int64(percentage ?? -1), reason?.rawValue ?? -1)
    let right = (
      other.type?.rawValue ?? "", Int64(other.percentage ?? -1), other.reason?.rawValue ?? -1
    )
    if left != right { return left > right }
    return input.ordersAfter(other.input)
  }
}

extension TransactionRecord: Hashable {
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.input == rhs.input && lhs.facts == rhs.facts && lhs.revocation == rhs.revocation
      && lhs.standingSince == rhs.standingSince && lhs.standingInput == rhs.standingInput
      && lhs.forwardedAccountToken == rhs.forwardedAccountToken
      && lhs.oldestStandingMilliseconds == rhs.oldestStandingMilliseconds
      && lhs.middleStandingMilliseconds == rhs.middleStandingMilliseconds
      && lhs.seatRefundMilliseconds == rhs.seatRefundMilliseconds
      && Set(lhs.otherRevocationInputs.map(\.reference))
        == Set(rhs.otherRevocationInputs.map(\.reference))
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(facts)
    hasher.combine(standingSince)
  }
}
