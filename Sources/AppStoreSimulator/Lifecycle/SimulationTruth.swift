import StoreLedgerCore

/// What is really the case for every customer at every simulated time, as the generator
/// decided it: the status of each subscription and whether each one-time purchase stands.
/// Tests compare StoreLedger's projections against it.
public struct SimulationTruth: Sendable {
  public struct Customer: Sendable, Hashable {
    public let id: String
    /// Nil for customers whose app never set one.
    public let appAccountToken: String?
  }

  public private(set) var customers: [Customer] = []
  /// Status changes per `originalTransactionId`, oldest first.
  private var statusChanges: [String: [Timed<SubscriptionStatus>]] = [:]
  /// Revocation changes per one-time purchase's `transactionId` (true: revoked).
  private var revocationChanges: [String: [Timed<Bool>]] = [:]
  /// The product in force per `originalTransactionId`, oldest change first, with what it
  /// entitles to (from the simulated app's own catalog).
  private var productChanges: [String: [Timed<Product>]] = [:]
  /// The customer of every subscription and one-time purchase, by its id.
  public private(set) var owners: [String: String] = [:]
  /// One-time purchases: product, entitlements and (for non-renewing ones) when they end.
  private var oneTime: [String: OneTimePurchase] = [:]

  public struct Product: Sendable, Hashable {
    public let id: String
    public let entitlements: [String]
  }

  struct OneTimePurchase: Sendable {
    let customer: String
    let entitlements: [String]
    let purchasedAt: Timestamp
    let endsAt: Timestamp?
    let consumable: Bool
  }
  /// Units bought per (customer, consumable product), with the refunds.
  public private(set) var consumableUnits: [String: Int64] = [:]
  /// The members each developer-hosted group subscription's purchaser invited (their
  /// appAccountTokens), by `originalTransactionId`: the developer's backend claims their
  /// seats; a member is entitled while the App Store holds their claim and the group
  /// subscription is.
  public private(set) var groupMembers: [String: [String]] = [:]

  public init() {}

  /// Every simulated subscription's `originalTransactionId`, sorted.
  public var subscriptions: [String] { statusChanges.keys.sorted() }
  /// Every simulated one-time purchase's `transactionId`, sorted.
  public var oneTimePurchases: [String] { revocationChanges.keys.sorted() }

  /// Apple's status of subscription `originalTransactionId` at `time` (nil before it began).
  public func status(of originalTransactionId: String, at time: Timestamp) -> SubscriptionStatus? {
    Self.latest(statusChanges[originalTransactionId], at: time)
  }

  /// The subscriptions that entered `status` in `[from, before)` by the books, with when:
  /// a change to it from another status (or a subscription's first).
  public func entries(into status: SubscriptionStatus, from: Timestamp, before: Timestamp)
    -> [(originalTransactionId: String, at: Timestamp)]
  {
    var found: [(originalTransactionId: String, at: Timestamp)] = []
    for (id, changes) in statusChanges.sorted(by: { $0.key < $1.key }) {
      var previous: SubscriptionStatus?
      for change in changes {
        if change.value == status, previous != status, change.time >= from,
          change.time < before
        {
          found.append((id, change.time))
        }
        previous = change.value
      }
    }
    return found
  }

  /// The product of subscription `originalTransactionId` in force at `time`: the one the
  /// customer last bought or changed to by then (nil before it began).
  public func product(of originalTransactionId: String, at time: Timestamp) -> Product? {
    Self.latest(productChanges[originalTransactionId], at: time)
  }

  /// What customer `id` is entitled to at `time`: the products of subscriptions that are
  /// active or in grace (or billing retry, when the app grants it), non-consumables not
  /// revoked, non-renewing passes within their days. Consumables are left out: their
  /// entitlement follows the balance, which the truth counts in ``consumableUnits``.
  public func entitlements(
    ofCustomer id: String, at time: Timestamp, billingRetryIsEntitled: Bool = false
  ) -> Set<String> {
    var names = Set<String>()
    for (original, owner) in owners where owner == id && productChanges[original] != nil {
      guard let status = status(of: original, at: time),
        status == .active || status == .billingGracePeriod
          || (status == .billingRetry && billingRetryIsEntitled),
        let product = product(of: original, at: time)
      else { continue }
      names.formUnion(product.entitlements)
    }
    for (transactionId, purchase) in oneTime
    where purchase.customer == id && !purchase.consumable && purchase.purchasedAt <= time {
      if isRevoked(transactionId, at: time) == true { continue }
      if let ends = purchase.endsAt, time >= ends { continue }
      names.formUnion(purchase.entitlements)
    }
    return names
  }

  /// Whether one-time purchase `transactionId` is revoked at `time` (nil before it was made).
  public func isRevoked(_ transactionId: String, at time: Timestamp) -> Bool? {
    Self.latest(revocationChanges[transactionId], at: time)
  }

  /// The newest change at or before `time`; of simultaneous ones, the last noted.
  private static func latest<Value>(_ changes: [Timed<Value>]?, at time: Timestamp) -> Value? {
    var found: Timed<Value>?
    for change in changes ?? [] where change.time <= time {
      if found.map({ change.time >= $0.time }) ?? true { found = change }
    }
    return found?.value
  }

  struct Timed<Value: Sendable>: Sendable {
    let time: Timestamp
    let value: Value
  }

  mutating func add(_ customer: Customer) { customers.append(customer) }

  mutating func note(
    _ originalTransactionId: String, _ status: SubscriptionStatus, at time: Timestamp
  ) {
    statusChanges[originalTransactionId, default: []].append(Timed(time: time, value: status))
  }

  mutating func note(
    _ originalTransactionId: String, product: String, entitlements: [String], at time: Int64,
    customer: String? = nil
  ) {
    productChanges[originalTransactionId, default: []].append(
      Timed(
        time: Timestamp(milliseconds: time), value: Product(id: product, entitlements: entitlements)
      ))
    if let customer { owners[originalTransactionId] = customer }
  }

  mutating func noteOneTime(
    _ transactionId: String, customer: String, entitlements: [String], at time: Timestamp,
    endsAt: Timestamp?, consumable: Bool
  ) {
    owners[transactionId] = customer
    oneTime[transactionId] = OneTimePurchase(
      customer: customer, entitlements: entitlements, purchasedAt: time, endsAt: endsAt,
      consumable: consumable)
  }

  mutating func note(purchase transactionId: String, revoked: Bool, at time: Timestamp) {
    revocationChanges[transactionId, default: []].append(Timed(time: time, value: revoked))
  }

  mutating func noteGroup(_ originalTransactionId: String, members: [String]) {
    groupMembers[originalTransactionId] = members
  }

  /// Whether a member holding a seat claim of group subscription `originalTransactionId` is
  /// entitled at `time` (the subscription's status entitles), and to what.
  public func memberEntitlements(
    ofGroup originalTransactionId: String, at time: Timestamp, billingRetryIsEntitled: Bool = false
  ) -> Set<String> {
    guard let status = status(of: originalTransactionId, at: time),
      status == .active || status == .billingGracePeriod
        || (status == .billingRetry && billingRetryIsEntitled),
      let product = product(of: originalTransactionId, at: time)
    else { return [] }
    return Set(product.entitlements)
  }

  mutating func merge(_ other: SimulationTruth) {
    customers += other.customers
    statusChanges.merge(other.statusChanges) { $0 + $1 }
    revocationChanges.merge(other.revocationChanges) { $0 + $1 }
    productChanges.merge(other.productChanges) { $0 + $1 }
    owners.merge(other.owners) { a, _ in a }
    oneTime.merge(other.oneTime) { a, _ in a }
    consumableUnits.merge(other.consumableUnits, uniquingKeysWith: +)
    groupMembers.merge(other.groupMembers) { a, _ in a }
  }

  mutating func credit(_ key: String, _ units: Int64) { consumableUnits[key, default: 0] += units }
}
