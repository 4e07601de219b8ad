/// Everything known about one transaction, merged so that any order of the same evidence
/// gives the same record: the newest snapshot, the newest revocation seen on it, and the
/// newest evidence that it is not (or no longer) revoked.
public struct TransactionRecord: Hashable, Sendable {
  /// The newest snapshot by `signedDate`.
  public private(set) var facts: TransactionFacts
  private var input: FoldInput
  /// The newest snapshot that carried a `revocationDate`, kept after a reversal clears it.
  public private(set) var revocation: Revocation?
  /// The newest `signedDate` of evidence that the transaction stands: a snapshot without
  /// `revocationDate`, or a `REFUND_REVERSED` notification.
  public private(set) var standingSince: Timestamp?
  private var standingInput: FoldInput?
  /// The account the backend named when it forwarded the transaction (if Apple's has none).
  public private(set) var forwardedAccountToken: String?

  /// The event that brought the newest snapshot.
  public var source: EventReference { input.reference }
  /// The event that brought the newest standing evidence.
  public var standingSource: EventReference? { standingInput?.reference }

  public struct Revocation: Hashable, Sendable {
    let facts: TransactionFacts
    let input: FoldInput
    public var date: Timestamp? { facts.revocationDate }
    public var reason: RevocationReason? { facts.revocationReason }
    public var type: RevocationType? { facts.revocationType }
    public var percentage: Int32? { facts.revocationPercentage }
    public var signedDate: Timestamp? { facts.signedDate }
    public var source: EventReference { input.reference }
  }

  init(facts: TransactionFacts, source: FoldInput) {
    self.facts = facts
    self.input = source
    absorbRevocationEvidence(facts, source: source)
  }

  /// Merges another snapshot of the same transaction.
  mutating func absorb(_ snapshot: TransactionFacts, source: FoldInput) {
    if snapshot.supersedes(facts) || (snapshot == facts && source.ordersAfter(input)) {
      facts = snapshot
      input = source
    }
    absorbRevocationEvidence(snapshot, source: source)
  }

  /// A `REFUND_REVERSED` notification signed at `signedDate`.
  mutating func absorbReversal(signedDate: Timestamp?, source: FoldInput) {
    noteStanding(signedDate, source: source)
  }

  mutating func absorbForwardedToken(_ token: String) {
    // Several forwards with different tokens: the greatest wins, whatever the order.
    if forwardedAccountToken.map({ token > $0 }) ?? true { forwardedAccountToken = token }
  }

  private mutating func absorbRevocationEvidence(
    _ snapshot: TransactionFacts, source: FoldInput
  ) {
    guard snapshot.revocationDate != nil else {
      noteStanding(snapshot.signedDate, source: source)
      return
    }
    let candidate = Revocation(facts: snapshot, input: source)
    if revocation.map({ candidate.isNewer(than: $0) }) ?? true { revocation = candidate }
  }

  private mutating func noteStanding(_ signedDate: Timestamp?, source: FoldInput) {
    guard let signedDate else { return }
    let newer = standingSince.map { signedDate > $0 } ?? true
    let sameButPreferred =
      standingSince == signedDate && standingInput.map { source.ordersAfter($0) } ?? false
    if newer || sameButPreferred {
      standingSince = signedDate
      standingInput = source
    }
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
    guard let standing = standingSince,
      standing >= (revocation.signedDate ?? Timestamp(milliseconds: .min))
    else { return true }
    return time < standing
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
