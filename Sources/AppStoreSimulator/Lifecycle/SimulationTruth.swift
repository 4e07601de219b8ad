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
  /// Units bought per (customer, consumable product), with the refunds.
  public private(set) var consumableUnits: [String: Int64] = [:]

  public init() {}

  /// Every simulated subscription's `originalTransactionId`, sorted.
  public var subscriptions: [String] { statusChanges.keys.sorted() }
  /// Every simulated one-time purchase's `transactionId`, sorted.
  public var oneTimePurchases: [String] { revocationChanges.keys.sorted() }

  /// Apple's status of subscription `originalTransactionId` at `time` (nil before it began).
  public func status(of originalTransactionId: String, at time: Timestamp) -> SubscriptionStatus? {
    Self.latest(statusChanges[originalTransactionId], at: time)
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

  mutating func note(purchase transactionId: String, revoked: Bool, at time: Timestamp) {
    revocationChanges[transactionId, default: []].append(Timed(time: time, value: revoked))
  }

  mutating func merge(_ other: SimulationTruth) {
    customers += other.customers
    statusChanges.merge(other.statusChanges) { $0 + $1 }
    revocationChanges.merge(other.revocationChanges) { $0 + $1 }
    consumableUnits.merge(other.consumableUnits, uniquingKeysWith: +)
  }

  mutating func credit(_ key: String, _ units: Int64) { consumableUnits[key, default: 0] += units }
}
