/// Everything known about one transaction, merged so that any order of the same evidence
/// gives the same record: the newest snapshot, the newest revocation seen on it, and the
/// newest evidence that it is not (or no longer) revoked.
public struct TransactionRecord: Hashable, Sendable {
  /// The newest snapshot by `signedDate`.
  public private(set) var facts: TransactionFacts
  public private(set) var source: EventReference
  /// The newest snapshot that carried a `revocationDate`, kept after a reversal clears it.
  public private(set) var revocation: Revocation?
  /// The newest `signedDate` of evidence that the transaction stands: a snapshot without
  /// `revocationDate`, or a `REFUND_REVERSED` notification.
  public private(set) var standingSince: Timestamp?
  public private(set) var standingSource: EventReference?
  /// The account the backend named when it forwarded the transaction (if Apple's has none).
  public private(set) var forwardedAccountToken: String?

  public struct Revocation: Hashable, Sendable {
    public var date: Timestamp?
    public var reason: RevocationReason?
    public var type: RevocationType?
    public var percentage: Int32?
    public var signedDate: Timestamp?
    public var source: EventReference
  }

  init(facts: TransactionFacts, source: EventReference) {
    self.facts = facts
    self.source = source
    absorbRevocationEvidence(facts, source: source)
  }

  /// Merges another snapshot of the same transaction.
  mutating func absorb(_ snapshot: TransactionFacts, source: EventReference) {
    if snapshot.supersedes(facts) || (snapshot == facts && source.ordersAfter(self.source)) {
      facts = snapshot
      self.source = source
    }
    absorbRevocationEvidence(snapshot, source: source)
  }

  /// A `REFUND_REVERSED` notification signed at `signedDate`.
  mutating func absorbReversal(signedDate: Timestamp?, source: EventReference) {
    noteStanding(signedDate, source: source)
  }

  mutating func absorbForwardedToken(_ token: String) {
    // Several forwards with different tokens: the greatest wins, whatever the order.
    if forwardedAccountToken.map({ token > $0 }) ?? true { forwardedAccountToken = token }
  }

  private mutating func absorbRevocationEvidence(
    _ snapshot: TransactionFacts, source: EventReference
  ) {
    guard snapshot.revocationDate != nil else {
      noteStanding(snapshot.signedDate, source: source)
      return
    }
    let candidate = Revocation(
      date: snapshot.revocationDate, reason: snapshot.revocationReason,
      type: snapshot.revocationType, percentage: snapshot.revocationPercentage,
      signedDate: snapshot.signedDate, source: source)
    if revocation.map({ candidate.isNewer(than: $0) }) ?? true { revocation = candidate }
  }

  private mutating func noteStanding(_ signedDate: Timestamp?, source: EventReference) {
    guard let signedDate else { return }
    let newer = standingSince.map { signedDate > $0 } ?? true
    let sameButPreferred =
      standingSince == signedDate && standingSource.map { source.ordersAfter($0) } ?? false
    if newer || sameButPreferred {
      standingSince = signedDate
      standingSource = source
    }
  }

  /// Revoked as far as the evidence goes: the newest revocation is newer than every sign
  /// that the transaction stands (a reversal signed at the same moment wins).
  public var isRevoked: Bool {
    guard let revocation else { return false }
    guard let standing = standingSince else { return true }
    return (revocation.signedDate ?? Timestamp(milliseconds: .min)) > standing
  }

  /// Revoked at `time`: revoked, and the revocation took effect at or before `time`.
  public func isRevoked(at time: Timestamp) -> Bool {
    guard isRevoked, let revocation else { return false }
    return (revocation.date ?? time) <= time
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
    return source.ordersAfter(other.source)
  }
}
