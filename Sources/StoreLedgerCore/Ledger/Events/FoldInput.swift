/// An event as the reducers read it: the few facts each rule needs, extracted from Apple's
/// payloads once, when the event is made. Immutable and shared, so copying an event for a fold
/// costs one reference.
public final class FoldInput: Sendable {
  /// The event's facts.
  public let body: LedgerEvent.Body
  public let reference: EventReference
  /// Apple's time (or the backend's, for its commands); see ``LedgerEvent/effectiveDate``.
  public let effectiveDate: Timestamp?
  /// The one transaction snapshot the event carries, if any (every kind carries at most one).
  let transactionFacts: TransactionFacts?
  /// The one renewal info the event carries, if any.
  let renewalFacts: RenewalInfoFacts?
  /// A digest of ``reference``: orders two events carrying the same facts with one integer
  /// comparison instead of four string comparisons on memory that is rarely in cache.
  private let orderDigest: UInt64

  public init(_ body: LedgerEvent.Body, key: String?) {
    self.body = body
    self.reference = EventReference(body, key: key)
    self.effectiveDate = reference.signedDate
    self.transactionFacts = body.transactionFacts
    self.renewalFacts = body.renewalFacts
    self.orderDigest = Self.digest(of: reference)
  }

  /// The same event under another key: only the reference changes, the facts are shared (a
  /// stored event is decoded first and given its key after).
  private init(_ other: FoldInput, key: String?) {
    body = other.body
    effectiveDate = other.effectiveDate
    transactionFacts = other.transactionFacts
    renewalFacts = other.renewalFacts
    var reference = other.reference
    reference.key = key
    self.reference = reference
    orderDigest = Self.digest(of: reference)
  }

  func withKey(_ key: String?) -> FoldInput {
    key == reference.key ? self : FoldInput(self, key: key)
  }

  private static func digest(of reference: EventReference) -> UInt64 {
    var digest = StableDigest()
    digest.add(reference.eventType)
    digest.add(reference.notification)
    digest.add(reference.key)
    digest.add(reference.transactionId)
    return digest.value
  }

  /// The subscription status Apple signed into the event, if any.
  var appleStatus: SubscriptionStatus? { body.appleStatus }

  /// The account token the backend named when forwarding a transaction.
  var forwardedToken: String? {
    guard case .transaction(let seen) = body else { return nil }
    return seen.forwardedToken
  }

  /// Whether this event is earlier than `other` by its effective date (an undated one last),
  /// the fixed order deciding between two of the same instant: the first of several events
  /// saying the same thing (a release, a withdrawn consent) wins whatever their arrival.
  func precedes(_ other: FoldInput) -> Bool {
    let mine = effectiveDate?.milliseconds ?? .max
    let theirs = other.effectiveDate?.milliseconds ?? .max
    return mine != theirs ? mine < theirs : other.ordersAfter(self)
  }

  /// An arbitrary but fixed order between events carrying the same facts, so a record cites
  /// the same event whatever the arrival order.
  func ordersAfter(_ other: FoldInput) -> Bool {
    guard self !== other else { return false }
    if orderDigest != other.orderDigest { return orderDigest > other.orderDigest }
    return reference.ordersAfter(other.reference)
  }
}

extension FoldInput: Hashable {
  public static func == (lhs: FoldInput, rhs: FoldInput) -> Bool {
    lhs === rhs || lhs.reference == rhs.reference
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(reference)
  }
}

extension FoldInput {
  /// The identifier the event is mostly about and Apple's time: what a plain keyed loop over
  /// events would store (the fold benchmark's ceiling).
  public var keyAndTime: (key: String, time: Int64)? {
    let time = effectiveDate?.milliseconds ?? 0
    switch body {
    case .notification(let facts):
      guard let key = facts.transaction?.transactionId ?? facts.renewal?.originalTransactionId
      else { return nil }
      return (key, time)
    case .transaction(let seen): return (seen.transaction.transactionId, time)
    case .renewal(let facts): return (facts.originalTransactionId, time)
    case .status(let facts): return (facts.originalTransactionId, time)
    case .debit(let debit): return (debit.id, time)
    case .link(let link): return (link.originalTransactionId, time)
    case .seat(let seat): return (seat.requestIdentifier, time)
    case .grant(let grant): return (grant.grantId, time)
    }
  }
}

extension LedgerEvent.Body {
  /// The stream the log keeps this event in (design.md, "Events"), without the environment
  /// prefix: the purchase chain for Apple's data, the account for backend commands; nil for
  /// notifications without a purchase.
  public var streamSubject: String? {
    switch self {
    case .notification(let facts):
      facts.transaction?.originalTransactionId ?? facts.renewal?.originalTransactionId
    case .transaction(let seen): seen.transaction.originalTransactionId
    case .renewal(let facts): facts.originalTransactionId
    case .status(let facts): facts.originalTransactionId
    case .debit(let debit): "acct:" + AppAccountToken.normalized(debit.appAccountToken)
    case .link(let link): link.originalTransactionId
    case .seat(let seat): seat.originalTransactionId
    case .grant(let grant): "acct:" + grant.appAccountToken
    }
  }
}
