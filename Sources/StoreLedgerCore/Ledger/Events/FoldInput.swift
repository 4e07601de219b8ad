/// An event as the reducers read it: the few facts each rule needs, extracted from Apple's
/// payloads once, when the event is made. Immutable and shared, so copying an event for a fold
/// costs one reference.
public final class FoldInput: Sendable {
  /// The event's body; nil for one made from a stored payload's facts alone
  /// (``init(storedPayload:key:)``), which no ``LedgerEvent`` holds.
  let body: LedgerEvent.Body?
  public let reference: EventReference
  /// Apple's time (or the backend's, for its commands); see ``LedgerEvent/effectiveDate``.
  public let effectiveDate: Timestamp?
  let change: Change
  /// The one transaction snapshot the event carries, if any (every kind carries at most one).
  let transactionFacts: TransactionFacts?
  /// The one renewal info the event carries, if any.
  let renewalFacts: RenewalFacts?
  /// A digest of ``reference``: orders two events carrying the same facts with one integer
  /// comparison instead of four string comparisons on memory that is rarely in cache.
  private let orderDigest: UInt64

  enum Change: Sendable, Equatable {
    case notification(
      transaction: TransactionFacts?, renewal: RenewalFacts?, isReversal: Bool,
      status: SubscriptionStatus?)
    case transaction(TransactionFacts?, forwardedToken: String?)
    case renewal(RenewalFacts?)
    case status(
      originalTransactionId: RecordKey, transaction: TransactionFacts?, renewal: RenewalFacts?,
      status: SubscriptionStatus?)
    case debit(ConsumableDebited)
    case link(AccountLinked)
  }

  /// `keepingBody` false: only the facts are kept (a fold that never shows the body).
  convenience init(_ body: LedgerEvent.Body, key: String?, keepingBody: Bool = true) {
    self.init(
      body: keepingBody ? body : nil, change: Self.change(of: body),
      reference: LedgerEvent.makeReference(body, key: key))
  }

  /// What every fold input is made of, from an event's body or straight from a stored
  /// payload's members (FoldInput+FlatJSON.swift). The reference carries the effective date.
  init(body: LedgerEvent.Body?, change: Change, reference: EventReference) {
    self.body = body
    self.effectiveDate = reference.signedDate
    self.change = change
    self.transactionFacts = Self.transactionFacts(of: change)
    self.renewalFacts = Self.renewalFacts(of: change)
    self.reference = reference
    self.orderDigest = Self.digest(of: reference)
  }

  /// The same event under another key: only the reference changes, the facts are shared (a
  /// stored event is decoded first and given its key after).
  private init(_ other: FoldInput, key: String?) {
    body = other.body
    effectiveDate = other.effectiveDate
    change = other.change
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

  private static func change(of body: LedgerEvent.Body) -> Change {
    switch body {
    case .notification(let received):
      return .notification(
        transaction: received.transaction.flatMap(TransactionFacts.init),
        renewal: received.renewalInfo.flatMap(RenewalFacts.init),
        isReversal: received.notification.notificationType == .refundReversed,
        status: received.notification.data?.status)
    case .transaction(let observed):
      let token = observed.appAccountToken.flatMap {
        $0.isEmpty ? nil : AppAccountToken.normalized($0)
      }
      return .transaction(TransactionFacts(observed.transaction), forwardedToken: token)
    case .renewalInfo(let observed): return .renewal(RenewalFacts(observed.renewalInfo))
    case .status(let observed):
      return .status(
        originalTransactionId: RecordKey(observed.originalTransactionId),
        transaction: observed.transaction.flatMap(TransactionFacts.init),
        renewal: observed.renewalInfo.flatMap(RenewalFacts.init), status: observed.status)
    case .debit(var debit):
      debit.appAccountToken = AppAccountToken.normalized(debit.appAccountToken)
      return .debit(debit)
    case .link(var link):
      link.appAccountToken = AppAccountToken.normalized(link.appAccountToken)
      return .link(link)
    }
  }

  private static func transactionFacts(of change: Change) -> TransactionFacts? {
    switch change {
    case .notification(let transaction, _, _, _): transaction
    case .transaction(let transaction, _): transaction
    case .status(_, let transaction, _, _): transaction
    case .renewal, .debit, .link: nil
    }
  }

  private static func renewalFacts(of change: Change) -> RenewalFacts? {
    switch change {
    case .notification(_, let renewal, _, _): renewal
    case .renewal(let renewal): renewal
    case .status(_, _, let renewal, _): renewal
    case .transaction, .debit, .link: nil
    }
  }

  /// The subscription status Apple signed into the event (a notification's `data.status`, a
  /// status observation's), if any.
  var appleStatus: SubscriptionStatus? {
    switch change {
    case .notification(_, _, _, let status), .status(_, _, _, let status): status
    case .transaction, .renewal, .debit, .link: nil
    }
  }

  /// The account token the backend named when forwarding a transaction.
  var forwardedToken: String? {
    guard case .transaction(_, let token) = change else { return nil }
    return token
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
    switch change {
    case .notification(let transaction, let renewal, _, _):
      guard let key = transaction?.transactionId ?? renewal?.originalTransactionId else {
        return nil
      }
      return (key, time)
    case .transaction(let transaction, _): return transaction.map { ($0.transactionId, time) }
    case .renewal(let renewal): return renewal.map { ($0.originalTransactionId, time) }
    case .status(let id, _, _, _): return (id.description, time)
    case .debit(let debit): return (debit.id, time)
    case .link(let link): return (link.originalTransactionId, time)
    }
  }
}

extension FoldInput {
  /// The stream the log keeps this event in (design.md, "Events"): the purchase chain for
  /// Apple's data, the account for backend debits; nil for notifications without a purchase.
  public var streamSubject: String? {
    switch change {
    case .notification(let transaction, let renewal, _, _):
      transaction?.originalTransactionId ?? renewal?.originalTransactionId
    case .transaction(let transaction, _): transaction?.originalTransactionId
    case .renewal(let renewal): renewal?.originalTransactionId
    case .status(let id, _, _, _): id.description
    case .debit(let debit): "acct:" + debit.appAccountToken
    case .link(let link): link.originalTransactionId
    }
  }
}
