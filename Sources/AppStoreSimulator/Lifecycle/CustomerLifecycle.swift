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
  /// The first id this customer's transactions count from.
  let nextIdBase: Int64
  var steps: [SimulatedStep] = []
  var truth = SimulationTruth()
  /// When this customer's subscription was extended: Apple allows two in 365 days.
  var extensions: [Int64] = []

  init(index: Int, configuration: SimulationConfiguration) {
    random = SimulatorRandom(seed: configuration.seed &* 0x9E37_79B9 &+ UInt64(index))
    customer = "customer-\(index)"
    end = configuration.end
    nextId = 2_000_000_000_000_000 + Int64(index) * 10_000
    nextIdBase = nextId
    token = random.chance(0.85) ? Self.uuid(&random) : nil
    truth.add(.init(id: customer, appAccountToken: token))
    let start = configuration.start.milliseconds
    if random.chance(0.8) { planSubscription(from: start + Self.day * Int64(random.int(0..<45))) }
    if random.chance(0.35) { planConsumables(from: start) }
    if random.chance(0.2) { planNonConsumable(at: start + Self.day * Int64(random.int(0..<90))) }
    if random.chance(0.1) { planNonRenewing(at: start + Self.day * Int64(random.int(0..<90))) }
    // What the App Store added in 2025–26, drawn after everything above so that the plans of
    // the WWDC21–24 App Store stay as they were for every seed.
    if random.chance(0.05) { planCommitment(from: start + Self.day * Int64(random.int(0..<60))) }
    if token != nil, random.chance(0.05) {
      planGroup(from: start + Self.day * Int64(random.int(0..<60)))
    }
    if random.chance(0.02) {
      let at = start + Self.day * Int64(random.int(30..<300))
      steps.append(
        .init(
          time: Timestamp(milliseconds: at), customer: customer,
          action: .rescindConsent(appTransactionId: appTransactionId)))
    }
    if random.chance(0.01) {
      let at = start + Self.day * Int64(random.int(0..<330))
      steps.append(
        .init(
          time: Timestamp(milliseconds: at), customer: customer,
          action: .futureNotification(type: "GADGET_RECALL", body: "gadgetInfo")))
    }
  }

  // MARK: Subscriptions

  private mutating func planSubscription(from start: Int64) {
    let shared = random.chance(0.1)
    let original = newId()
    let first = firstProduct()
    var current = transaction(
      original, original: original, product: first.id, at: start,
      expires: start + first.period, ownership: shared ? .familyShared : .purchased)
    if random.chance(0.3) {
      // An introductory offer of one period, with every field Apple sends: a free trial of
      // a week or a month (every other customer, decided without a draw so the rest of the
      // plan stays the seed's), else the period at half price. Apple's `price` is what was
      // charged, after the offer.
      current.offerType = .introductory
      current.offerPeriod = first.isoPeriod
      if first.period <= 31 * Self.day, (nextIdBase / 10_000) % 2 == 0 {
        current.offerDiscountType = .freeTrial
        current.price = 0
      } else {
        current.offerDiscountType = .payAsYouGo
        current.price = first.price / 2
      }
    }
    var renewal = renewalInfo(original, product: first.id, at: start)
    put(current, at: start)
    truth.note(
      original, product: first.id, entitlements: first.entitlements, at: start, customer: customer)
    announce(&renewal, .active, .subscribed, .initialBuy, about: current, at: start)
    var renewals = 0
    // Each pass plans one period and ends in a later one (or returns), so steps move forward.
    while current.expiresDate!.milliseconds <= end.milliseconds {
      let periodStart = current.purchaseDate!.milliseconds
      let periodEnd = current.expiresDate!.milliseconds
      let product = P.subscription(current.productId!)!
      let roll = random.unit()
      if shared, roll < 0.05 {
        revokeFamily(&current, at: Self.into(periodStart, periodEnd, days: 5))
        return
      } else if roll < 0.06 {
        guard churn(&current, &renewal, periodEnd: periodEnd) else { return }
      } else if roll < 0.13 {
        guard failToRenew(&current, &renewal, at: periodEnd) else { return }
      } else if roll < 0.21 {
        let target = otherProduct(than: product)
        let at = Self.into(periodStart, periodEnd, days: 10)
        if Self.takesEffectAtOnce(from: product, to: target) {
          upgrade(&current, &renewal, to: target, at: at)
        } else {
          // A downgrade, or a crossgrade to another duration: the next renewal brings it.
          downgrade(&renewal, to: target.id, current, at: at)
          var next = target
          if random.chance(0.3) {
            keepCurrentProduct(&renewal, current, at: Self.into(periodStart, periodEnd, days: 15))
            next = product
          }
          current = renew(current, &renewal, product: next.id, at: periodEnd)
        }
      } else if roll < 0.225 {
        redeemOffer(&renewal, current, at: Self.into(periodStart, periodEnd, days: 12))
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
        // Apple extends a subscription at most twice in 365 days (SubscriptionMaxExtension).
        let at = Self.into(periodStart, periodEnd, days: 15)
        if extensions.filter({ $0 > at - 365 * Self.day }).count < 2 {
          extend(&current, by: 7, at: at)
          extensions.append(at)
        }
        current = renew(
          current, &renewal, product: current.productId!, at: current.expiresDate!.milliseconds)
      } else if roll < 0.30 {
        guard refundCurrent(&current, at: Self.into(periodStart, periodEnd, days: 5)) else {
          return
        }
        current = renew(current, &renewal, product: current.productId!, at: periodEnd)
      } else {
        if roll < 0.33, renewals > 0 {
          refundOlder(current, at: Self.into(periodStart, periodEnd, days: 3))
        }
        current = renew(current, &renewal, product: current.productId!, at: periodEnd)
        renewals += 1
      }
    }
  }

  /// Mostly monthly, some yearly, a few weekly products, of any level.
  private mutating func firstProduct() -> P.Subscription {
    let days: Int64 = random.chance(0.12) ? 7 : random.chance(0.25) ? 365 : 30
    let candidates = P.subscriptionProducts.filter { $0.days == days }
    return candidates[random.int(0..<candidates.count)]
  }

  private mutating func otherProduct(than product: P.Subscription) -> P.Subscription {
    let others = P.subscriptionProducts.filter { $0.id != product.id }
    return others[random.int(0..<others.count)]
  }

  /// Reference §8.3: an upgrade takes effect at once, whatever the durations; so does a
  /// crossgrade to the same duration. A downgrade, or a crossgrade to another duration, waits
  /// for the next renewal.
  static func takesEffectAtOnce(from old: P.Subscription, to new: P.Subscription) -> Bool {
    new.level < old.level || (new.level == old.level && new.days == old.days)
  }

  /// `days` into a period (scaled down for periods shorter than a month), before its end.
  static func into(_ start: Int64, _ end: Int64, days: Int64) -> Int64 {
    let length = end - start
    return start + min(days * day, length * days / 30)
  }

  private mutating func renew(
    _ previous: JWSTransactionDecodedPayload, _ renewal: inout JWSRenewalInfoDecodedPayload,
    product: String, at time: Int64, subtype: NotificationSubtype? = nil, offer: OfferType? = nil,
    expires: Int64? = nil
  ) -> JWSTransactionDecodedPayload {
    let period = P.subscription(product)!.period
    var next = transaction(
      newId(), original: previous.originalTransactionId!, product: product, at: time,
      expires: expires ?? time + period, ownership: previous.inAppOwnershipType ?? .purchased)
    next.transactionReason = .renewal
    if let offer {
      next.offerType = offer
      next.offerIdentifier = renewal.offerIdentifier
      next.offerDiscountType = renewal.offerDiscountType ?? .payAsYouGo
      next.offerPeriod = renewal.offerPeriod ?? P.subscription(product)!.isoPeriod
      // The offer's period at half price.
      next.price = (next.price ?? 0) / 2
    }
    renewal = renewalInfo(next.originalTransactionId!, product: product, at: time)
    put(next, at: time)
    if product != previous.productId {
      truth.note(
        next.originalTransactionId!, product: product,
        entitlements: P.subscription(product)!.entitlements, at: time)
    }
    announce(&renewal, .active, .didRenew, subtype, about: next, at: time)
    return next
  }

  /// Auto-renew off mid-period, expiry at its end, maybe a resubscribe later.
  private mutating func churn(
    _ current: inout JWSTransactionDecodedPayload, _ renewal: inout JWSRenewalInfoDecodedPayload,
    periodEnd: Int64
  ) -> Bool {
    let start = current.purchaseDate!.milliseconds
    let off = Self.into(start, periodEnd, days: 20)
    renewal.autoRenewStatus = .off
    announce(
      &renewal, .active, .didChangeRenewalStatus, .autoRenewDisabled, about: current, at: off)
    if random.chance(0.3) {
      let on = Self.into(start, periodEnd, days: 26)
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
      expires: back + P.subscription(current.productId!)!.period,
      ownership: current.inAppOwnershipType ?? .purchased)
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
    // Grace lasts 3 or 6 days for weekly products, 3, 16 or 28 for longer ones (§8.4).
    let weekly = P.subscription(current.productId!)!.days < 30
    let graceDays = weekly ? 6 : 16
    let graceEnd = periodEnd + Int64(graceDays) * Self.day
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
      let days =
        graceRunsOut ? random.int((graceDays + 1)..<55) : random.int(2..<(grace ? graceDays : 55))
      let recovered = periodEnd + Int64(days) * Self.day
      guard recovered < end.milliseconds else { return false }
      // Recovery inside grace keeps the billing cycle (reference §8.4): the period runs from
      // the lapsed one's end; after grace the new billing date is the recovery's.
      let inGrace = grace && !graceRunsOut
      let period = P.subscription(current.productId!)!.period
      current = renew(
        current, &renewal, product: current.productId!, at: recovered, subtype: .billingRecovery,
        expires: inGrace ? periodEnd + period : nil)
      return true
    }
    let expiry = periodEnd + 60 * Self.day
    renewal.isInBillingRetryPeriod = false
    renewal.gracePeriodExpiresDate = nil
    renewal.autoRenewStatus = .off
    announce(&renewal, .expired, .expired, .billingRetry, about: current, at: expiry)
    return false
  }

  /// An upgrade (or a crossgrade to the same duration): a new transaction at once, for the
  /// new product's own period. The old one is marked upgraded in history only: Apple never
  /// sends a notification carrying it.
  private mutating func upgrade(
    _ current: inout JWSTransactionDecodedPayload, _ renewal: inout JWSRenewalInfoDecodedPayload,
    to product: P.Subscription, at time: Int64
  ) {
    var upgraded = current
    upgraded.isUpgraded = true
    put(upgraded, at: time)
    var next = transaction(
      newId(), original: current.originalTransactionId!, product: product.id, at: time,
      expires: time + product.period, ownership: current.inAppOwnershipType ?? .purchased)
    next.transactionReason = .purchase
    renewal = renewalInfo(next.originalTransactionId!, product: product.id, at: time)
    put(next, at: time)
    truth.note(
      next.originalTransactionId!, product: product.id, entitlements: product.entitlements,
      at: time)
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
    renewal.offerDiscountType = .payAsYouGo
    renewal.offerPeriod = current.productId.flatMap(P.subscription)?.isoPeriod
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
      &renewal, .active, .priceIncrease, .pending, about: current,
      at: Self.into(periodStart, periodEnd, days: 5))
    if random.chance(0.3) {
      renewal.autoRenewStatus = .off
      renewal.expirationIntent = .priceIncreaseNotConsented
      announce(&renewal, .expired, .expired, .priceIncrease, about: current, at: periodEnd)
      return false
    }
    renewal.priceIncreaseStatus = .consentedOrNotified
    announce(
      &renewal, .active, .priceIncrease, .accepted, about: current,
      at: Self.into(periodStart, periodEnd, days: 8))
    return true
  }
}
