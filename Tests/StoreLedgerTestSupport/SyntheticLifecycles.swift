import StoreLedgerCore

/// Seeded, reproducible customer lifecycles as ledger events (renewals, billing failures with
/// and without grace, recoveries, voluntary churn, upgrades, refunds and reversals of current
/// and older periods, consumables with debits, non-consumables with family revokes), each
/// recorded a random while after Apple signed it. For property tests and the fold benchmark.
public struct SyntheticLifecycles {
  typealias F = LedgerFixtures
  private var random: SeededRandom
  public private(set) var events: [LedgerEvent] = []

  public init(seed: UInt64) {
    random = SeededRandom(seed: seed)
  }

  /// Events of `customers` customers, customer by customer.
  public static func events(customers: Int, seed: UInt64) -> [LedgerEvent] {
    var generator = SyntheticLifecycles(seed: seed)
    for customer in 0..<customers { generator.addCustomer(customer) }
    return generator.events
  }

  public mutating func addCustomer(_ customer: Int) {
    let token: String? = random.chance(0.85) ? LedgerFixtures.account(customer) : nil
    if random.chance(0.8) { addSubscription(customer, token: token) }
    if random.chance(0.4) { addConsumables(customer, token: token) }
    if random.chance(0.2) { addNonConsumable(customer, token: token) }
    if token == nil, random.chance(0.5) {
      emit(
        F.link(Self.appleId(customer), to: "linked-\(customer)", at: Double(random.int(0..<300))))
    }
  }

  /// Apple-shaped identifiers: 16-digit decimal strings, the first transaction of a chain
  /// carrying the chain's id, as in Apple's data. Per customer: periods from 0, then the
  /// recovery, the upgrade, consumables and the non-consumable at fixed offsets.
  static func appleId(_ customer: Int, _ offset: Int = 0) -> String {
    String(2_000_000_000_000_000 + customer * 1_000 + offset)
  }
  static func sibling(of original: String, _ offset: Int) -> String {
    String(Int(original)! + offset)
  }
  static let recovery = 100
  static let upgrade = 101
  static let consumables = 200
  static let lifetime = 300

  private mutating func emit(_ event: LedgerEvent) {
    var event = event
    let signed = event.effectiveDate?.milliseconds ?? F.epoch
    event.recordedAt = Timestamp(milliseconds: signed + Int64(random.int(0..<3 * 86_400_000)))
    events.append(event)
  }

  private mutating func addSubscription(_ customer: Int, token: String?) {
    let original = Self.appleId(customer)
    let periods = random.int(1..<13)
    var product = "pro.monthly"
    for period in 0..<periods {
      let start = Double(period * 30)
      let id = Self.appleId(customer, period)
      let transaction = F.transaction(
        id, original: original, product: product, purchased: start, expires: start + 30,
        token: token)
      emit(
        F.notification(
          period == 0 ? .subscribed : .didRenew, period == 0 ? .initialBuy : nil, signed: start,
          transaction: transaction,
          renewal: F.renewal(original, signed: start, product: product), status: .active))
      if random.chance(0.3) { emit(F.observed(transaction)) }
      if period > 0, random.chance(0.05) {
        refund(
          F.transaction(
            Self.appleId(customer, period - 1), original: original, product: product,
            purchased: start - 30,
            expires: start, token: token), at: start + 2, chainStatus: .active)
      }
      if random.chance(0.05) {
        product = "premium.monthly"
        upgrade(original, from: transaction, at: start + 10, token: token)
        return
      }
    }
    let end = Double(periods * 30)
    let last = F.transaction(
      Self.appleId(customer, periods - 1), original: original, product: product,
      purchased: end - 30,
      expires: end, token: token)
    finish(original, last: last, product: product, end: end)
  }

  private mutating func finish(
    _ original: String, last: JWSTransactionDecodedPayload, product: String, end: Double
  ) {
    switch random.int(0..<4) {
    case 0:
      emit(
        F.notification(
          .didChangeRenewalStatus, .autoRenewDisabled, signed: end - 5, transaction: last,
          renewal: F.renewal(original, signed: end - 5, product: product, autoRenew: .off)))
      emit(
        F.notification(
          .expired, .voluntary, signed: end, transaction: last,
          renewal: F.renewal(
            original, signed: end, product: product, autoRenew: .off, intent: .customerCancelled),
          status: .expired))
    case 1:
      emit(
        F.notification(
          .didFailToRenew, .gracePeriod, signed: end, transaction: last,
          renewal: F.renewal(original, signed: end, product: product, retry: true, grace: end + 16),
          status: .billingGracePeriod))
      if random.chance(0.5) {
        emit(
          F.notification(
            .gracePeriodExpired, signed: end + 16, transaction: last,
            renewal: F.renewal(
              original, signed: end + 16, product: product, retry: true, grace: end + 16),
            status: .billingRetry))
      } else {
        let recovered = F.transaction(
          Self.sibling(of: original, Self.recovery), original: original, product: product,
          purchased: end + 3,
          expires: end + 30, token: last.appAccountToken)
        emit(
          F.notification(
            .didRenew, .billingRecovery, signed: end + 3, transaction: recovered,
            renewal: F.renewal(original, signed: end + 3, product: product), status: .active))
      }
    case 2:
      refund(last, at: end - 10)
      if random.chance(0.5) { reverse(last, at: end - 5) }
    default:
      break
    }
  }

  private mutating func upgrade(
    _ original: String, from old: JWSTransactionDecodedPayload, at day: Double, token: String?
  ) {
    var upgraded = old
    upgraded.isUpgraded = true
    upgraded.signedDate = F.t(day)
    let premium = F.transaction(
      Self.sibling(of: original, Self.upgrade), original: original, product: "premium.monthly",
      purchased: day,
      expires: day + 30, token: token)
    emit(
      F.notification(
        .didChangeRenewalPref, .upgrade, signed: day, transaction: premium,
        renewal: F.renewal(original, signed: day, product: "premium.monthly"), status: .active))
    emit(F.observed(upgraded))
  }

  /// `chainStatus`: what Apple signs as the subscription's status with the refund — revoked
  /// when the refunded period is the current one, active when a later period runs.
  private mutating func refund(
    _ transaction: JWSTransactionDecodedPayload, at day: Double,
    chainStatus: SubscriptionStatus = .revoked
  ) {
    var refunded = transaction
    refunded.revocationDate = F.t(day)
    refunded.revocationReason = .appIssue
    refunded.revocationType = .refundFull
    refunded.signedDate = F.t(day)
    emit(F.notification(.refund, signed: day, transaction: refunded, status: chainStatus))
  }

  private mutating func reverse(_ transaction: JWSTransactionDecodedPayload, at day: Double) {
    var reinstated = transaction
    reinstated.signedDate = F.t(day)
    emit(F.notification(.refundReversed, signed: day, transaction: reinstated))
  }

  private mutating func addConsumables(_ customer: Int, token: String?) {
    for purchase in 0..<random.int(1..<4) {
      let day = Double(random.int(0..<300))
      let gems = F.transaction(
        Self.appleId(customer, Self.consumables + purchase), product: "gems.100", type: .consumable,
        purchased: day,
        token: token, quantity: Int32(random.int(1..<4)))
      emit(F.notification(.oneTimeCharge, signed: day, transaction: gems))
      if random.chance(0.1) { refund(gems, at: day + 1) }
      if let token, random.chance(0.7) {
        emit(
          F.debit(
            "d\(customer)-\(purchase)", token: token, product: "gems.100",
            quantity: Int64(random.int(1..<150)), at: day + 2))
      }
    }
  }

  private mutating func addNonConsumable(_ customer: Int, token: String?) {
    let shared = random.chance(0.3)
    let lifetime = F.transaction(
      Self.appleId(customer, Self.lifetime), product: "lifetime", type: .nonConsumable,
      purchased: 5, token: token,
      ownership: shared ? .familyShared : .purchased)
    emit(F.notification(.oneTimeCharge, signed: 5, transaction: lifetime))
    if shared, random.chance(0.5) {
      var revoked = lifetime
      revoked.revocationDate = F.t(40)
      revoked.revocationType = .familyRevoke
      revoked.revocationReason = .other
      revoked.signedDate = F.t(40)
      emit(F.notification(.revoke, signed: 40, transaction: revoked))
    }
  }
}

/// SplitMix64: small, fast and the same on every platform.
public struct SeededRandom: RandomNumberGenerator {
  private var state: UInt64

  public init(seed: UInt64) {
    state = seed
  }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  public mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &self) }

  public mutating func chance(_ probability: Double) -> Bool {
    Double.random(in: 0..<1, using: &self) < probability
  }
}
