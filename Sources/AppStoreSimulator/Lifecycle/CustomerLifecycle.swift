import StoreLedgerCore

/// Plans one customer's life with the App Store: the steps, in time order, and the truth
/// they make. Every choice comes from the customer's own seeded generator, so a customer's
/// plan does not depend on the others.
struct CustomerLifecycle {
  typealias P = SimulatedProducts
  static let day = SimulationConfiguration.day
  static let period = SimulationConfiguration.period

  let customer: String
  let token: String?
  let end: Timestamp
  var random: SimulatorRandom
  var nextId: Int64
  var steps: [SimulatedStep] = []
  var truth = SimulationTruth()

  init(index: Int, configuration: SimulationConfiguration) {
    random = SimulatorRandom(seed: configuration.seed &* 0x9E37_79B9 &+ UInt64(index))
    customer = "customer-\(index)"
    end = configuration.end
    nextId = 2_000_000_000_000_000 + Int64(index) * 10_000
    token = random.chance(0.85) ? Self.uuid(&random) : nil
    truth.add(.init(id: customer, appAccountToken: token))
    let start = configuration.start.milliseconds
    if random.chance(0.8) { planSubscription(from: start + Self.day * Int64(random.int(0..<45))) }
    if random.chance(0.35) { planConsumables(from: start) }
    if random.chance(0.2) { planNonConsumable(at: start + Self.day * Int64(random.int(0..<90))) }
    if random.chance(0.1) { planNonRenewing(at: start + Self.day * Int64(random.int(0..<90))) }
  }

  // MARK: Subscriptions

  private mutating func planSubscription(from start: Int64) {
    let shared = random.chance(0.1)
    var level = random.int(0..<3)
    let original = newId()
    var current = transaction(
      original, original: original, product: P.subscriptions[level], at: start,
      expires: start + Self.period, ownership: shared ? .familyShared : .purchased)
    if random.chance(0.3) { current.offerType = .introductory }
    var renewal = renewalInfo(original, product: P.subscriptions[level], at: start)
    put(current, at: start)
    announce(&renewal, .active, .subscribed, .initialBuy, about: current, at: start)
    var renewals = 0
    // Each pass plans one period and ends in a later one (or returns), so steps move forward.
    while current.expiresDate!.milliseconds <= end.milliseconds {
      let periodStart = current.purchaseDate!.milliseconds
      let periodEnd = current.expiresDate!.milliseconds
      let roll = random.unit()
      if shared, roll < 0.05 {
        revokeFamily(&current, at: periodStart + 5 * Self.day)
        return
      } else if roll < 0.06 {
        guard churn(&current, &renewal, periodEnd: periodEnd) else { return }
      } else if roll < 0.13 {
        guard failToRenew(&current, &renewal, at: periodEnd) else { return }
      } else if roll < 0.17, let sibling = P.crossgrades[current.productId!], random.chance(0.3) {
        upgrade(&current, &renewal, to: sibling, at: periodStart + 10 * Self.day)
      } else if roll < 0.17, level > 0 {
        level -= 1
        upgrade(&current, &renewal, to: P.subscriptions[level], at: periodStart + 10 * Self.day)
      } else if roll < 0.21, level < 2 {
        downgrade(
          &renewal, to: P.subscriptions[level + 1], current, at: periodStart + 10 * Self.day)
        if random.chance(0.3) {
          keepCurrentProduct(&renewal, current, at: periodStart + 15 * Self.day)
        } else {
          level += 1
        }
        current = renew(current, &renewal, product: P.subscriptions[level], at: periodEnd)
      } else if roll < 0.225 {
        redeemOffer(&renewal, current, at: periodStart + 12 * Self.day)
        current = renew(
          current, &renewal, product: current.productId!, at: periodEnd, offer: .promotional)
      } else if roll < 0.23 {
        notForSale(&renewal, current, at: periodEnd)
        return
      } else if roll < 0.24 {
        guard priceIncrease(&renewal, current, periodStart: periodStart, periodEnd: periodEnd)
        else { return }
        current = renew(current, &renewal, product: current.productId!, at: periodEnd)
      } else if roll < 0.27 {
        extend(&current, by: 7, at: periodStart + 15 * Self.day)
        current = renew(
          current, &renewal, product: current.productId!, at: current.expiresDate!.milliseconds)
      } else if roll < 0.30 {
        guard refundCurrent(&current, at: periodStart + 5 * Self.day) else { return }
        current = renew(current, &renewal, product: current.productId!, at: periodEnd)
      } else {
        if roll < 0.33, renewals > 0 { refundOlder(current, at: periodStart + 3 * Self.day) }
        current = renew(current, &renewal, product: current.productId!, at: periodEnd)
        renewals += 1
      }
    }
  }

  private mutating func renew(
    _ previous: JWSTransactionDecodedPayload, _ renewal: inout JWSRenewalInfoDecodedPayload,
    product: String, at time: Int64, subtype: NotificationSubtype? = nil, offer: OfferType? = nil
  ) -> JWSTransactionDecodedPayload {
    var next = transaction(
      newId(), original: previous.originalTransactionId!, product: product, at: time,
      expires: time + Self.period, ownership: previous.inAppOwnershipType ?? .purchased)
    next.transactionReason = .renewal
    next.offerType = offer
    renewal = renewalInfo(next.originalTransactionId!, product: product, at: time)
    put(next, at: time)
    announce(&renewal, .active, .didRenew, subtype, about: next, at: time)
    return next
  }

  /// Auto-renew off mid-period, expiry at its end, maybe a resubscribe later.
  private mutating func churn(
    _ current: inout JWSTransactionDecodedPayload, _ renewal: inout JWSRenewalInfoDecodedPayload,
    periodEnd: Int64
  ) -> Bool {
    let off = periodEnd - 10 * Self.day
    renewal.autoRenewStatus = .off
    announce(
      &renewal, .active, .didChangeRenewalStatus, .autoRenewDisabled, about: current, at: off)
    if random.chance(0.3) {
      let on = periodEnd - 4 * Self.day
      renewal.autoRenewStatus = .on
      announce(
        &renewal, .active, .didChangeRenewalStatus, .autoRenewEnabled, about: current, at: on)
      current = renew(current, &renewal, product: current.productId!, at: periodEnd)
      return true
    }
    renewal.expirationIntent = .customerCancelled
    announce(&renewal, .expired, .expired, .voluntary, about: current, at: periodEnd)
    guard random.chance(0.4) else { return false }
    let back = periodEnd + 20 * Self.day
    guard back < end.milliseconds else { return false }
    var again = transaction(
      newId(), original: current.originalTransactionId!, product: current.productId!, at: back,
      expires: back + Self.period, ownership: current.inAppOwnershipType ?? .purchased)
    again.transactionReason = .purchase
    renewal = renewalInfo(again.originalTransactionId!, product: again.productId!, at: back)
    put(again, at: back)
    announce(&renewal, .active, .subscribed, .resubscribe, about: again, at: back)
    current = again
    return true
  }

  /// A failed renewal: grace period or straight to billing retry; recovery or expiry.
  private mutating func failToRenew(
    _ current: inout JWSTransactionDecodedPayload, _ renewal: inout JWSRenewalInfoDecodedPayload,
    at periodEnd: Int64
  ) -> Bool {
    let grace = random.chance(0.5)
    renewal.isInBillingRetryPeriod = true
    renewal.expirationIntent = .billingError
    renewal.signedDate = Timestamp(milliseconds: periodEnd)
    let graceEnd = periodEnd + 16 * Self.day
    if grace { renewal.gracePeriodExpiresDate = Timestamp(milliseconds: graceEnd) }
    let failedStatus: SubscriptionStatus = grace ? .billingGracePeriod : .billingRetry
    setRenewal(renewal, failedStatus, at: periodEnd)
    notify(.didFailToRenew, grace ? .gracePeriod : nil, current, failedStatus, at: periodEnd)
    let recovers = random.chance(0.5)
    let graceRunsOut = grace && (!recovers || random.chance(0.5))
    if graceRunsOut {
      announce(&renewal, .billingRetry, .gracePeriodExpired, nil, about: current, at: graceEnd)
    }
    if recovers {
      // Recovery comes inside the grace period, or after it ran out, within retry's 60 days.
      let days = graceRunsOut ? random.int(17..<55) : random.int(2..<(grace ? 16 : 55))
      let recovered = periodEnd + Int64(days) * Self.day
      guard recovered < end.milliseconds else { return false }
      current = renew(
        current, &renewal, product: current.productId!, at: recovered, subtype: .billingRecovery)
      return true
    }
    let expiry = periodEnd + 60 * Self.day
    renewal.isInBillingRetryPeriod = false
    renewal.gracePeriodExpiresDate = nil
    renewal.autoRenewStatus = .off
    announce(&renewal, .expired, .expired, .billingRetry, about: current, at: expiry)
    return false
  }

  private mutating func upgrade(
    _ current: inout JWSTransactionDecodedPayload, _ renewal: inout JWSRenewalInfoDecodedPayload,
    to product: String, at time: Int64
  ) {
    var upgraded = current
    upgraded.isUpgraded = true
    put(upgraded, at: time)
    var next = transaction(
      newId(), original: current.originalTransactionId!, product: product, at: time,
      expires: time + Self.period, ownership: current.inAppOwnershipType ?? .purchased)
    next.transactionReason = .purchase
    renewal = renewalInfo(next.originalTransactionId!, product: product, at: time)
    put(next, at: time)
    announce(&renewal, .active, .didChangeRenewalPref, .upgrade, about: next, at: time)
    current = next
  }

  private mutating func downgrade(
    _ renewal: inout JWSRenewalInfoDecodedPayload, to product: String,
    _ current: JWSTransactionDecodedPayload, at time: Int64
  ) {
    renewal.autoRenewProductId = product
    announce(&renewal, .active, .didChangeRenewalPref, .downgrade, about: current, at: time)
  }

  /// A price increase needing consent: accepted (true), or declined and expired at the
  /// period's end (false).
  /// The customer switches back to the current product: the pending downgrade is off.
  private mutating func keepCurrentProduct(
    _ renewal: inout JWSRenewalInfoDecodedPayload, _ current: JWSTransactionDecodedPayload,
    at time: Int64
  ) {
    renewal.autoRenewProductId = current.productId
    announce(&renewal, .active, .didChangeRenewalPref, nil, about: current, at: time)
  }

  /// A promotional offer redeemed on the active subscription, for the next period.
  private mutating func redeemOffer(
    _ renewal: inout JWSRenewalInfoDecodedPayload, _ current: JWSTransactionDecodedPayload,
    at time: Int64
  ) {
    renewal.offerType = .promotional
    renewal.offerIdentifier = "loyal.customer"
    announce(&renewal, .active, .offerRedeemed, nil, about: current, at: time)
  }

  /// The product was no longer for sale when the renewal came.
  private mutating func notForSale(
    _ renewal: inout JWSRenewalInfoDecodedPayload, _ current: JWSTransactionDecodedPayload,
    at time: Int64
  ) {
    renewal.autoRenewStatus = .off
    renewal.expirationIntent = .productNotAvailable
    announce(&renewal, .expired, .expired, .productNotForSale, about: current, at: time)
  }

  private mutating func priceIncrease(
    _ renewal: inout JWSRenewalInfoDecodedPayload, _ current: JWSTransactionDecodedPayload,
    periodStart: Int64, periodEnd: Int64
  ) -> Bool {
    renewal.priceIncreaseStatus = .notResponded
    announce(
      &renewal, .active, .priceIncrease, .pending, about: current, at: periodStart + 5 * Self.day)
    if random.chance(0.3) {
      renewal.autoRenewStatus = .off
      renewal.expirationIntent = .priceIncreaseNotConsented
      announce(&renewal, .expired, .expired, .priceIncrease, about: current, at: periodEnd)
      return false
    }
    renewal.priceIncreaseStatus = .consentedOrNotified
    announce(
      &renewal, .active, .priceIncrease, .accepted, about: current, at: periodStart + 8 * Self.day)
    return true
  }

  private mutating func extend(
    _ current: inout JWSTransactionDecodedPayload, by days: Int64, at time: Int64
  ) {
    current.expiresDate = Timestamp(
      milliseconds: current.expiresDate!.milliseconds + days * Self.day)
    put(current, at: time)
    notify(.renewalExtended, nil, current, .active, at: time)
  }

  /// A refund of the period in force: revoked, sometimes reversed later.
  private mutating func refundCurrent(_ current: inout JWSTransactionDecodedPayload, at time: Int64)
    -> Bool
  {
    notify(.consumptionRequest, nil, current, .active, at: time - 2 * Self.day)
    var refunded = current
    refunded.revocationDate = Timestamp(milliseconds: time)
    refunded.revocationReason = random.chance(0.5) ? .appIssue : .other
    refunded.revocationType = .refundFull
    put(refunded, at: time)
    notify(.refund, nil, refunded, .revoked, at: time)
    guard random.chance(0.3) else { return false }
    let reversed = time + 5 * Self.day
    put(current, at: reversed)
    truth.note(current.originalTransactionId!, .active, at: Timestamp(milliseconds: reversed))
    notify(.refundReversed, nil, current, .active, at: reversed)
    return true
  }

  private mutating func refundOlder(_ current: JWSTransactionDecodedPayload, at time: Int64) {
    guard
      let older = steps.reversed().compactMap({ step -> JWSTransactionDecodedPayload? in
        guard case .put(let transaction) = step.action,
          transaction.originalTransactionId == current.originalTransactionId,
          transaction.transactionId != current.transactionId, transaction.isUpgraded != true
        else { return nil }
        return transaction
      }).first
    else { return }
    var refunded = older
    refunded.revocationDate = Timestamp(milliseconds: time)
    refunded.revocationReason = .other
    refunded.revocationType = .refundFull
    put(refunded, at: time)
    notify(.refund, nil, refunded, .active, at: time)
  }

  private mutating func revokeFamily(_ current: inout JWSTransactionDecodedPayload, at time: Int64)
  {
    current.revocationDate = Timestamp(milliseconds: time)
    current.revocationReason = .other
    current.revocationType = .familyRevoke
    put(current, at: time)
    notify(.revoke, nil, current, .revoked, at: time)
  }
}
