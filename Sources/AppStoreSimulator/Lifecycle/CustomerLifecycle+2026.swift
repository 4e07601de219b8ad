import StoreLedgerCore

/// The App Store of 2026: monthly plans with a 12-month commitment (reference §8.12) and
/// group subscriptions with developer-hosted invitations (§8.13), planned as Apple runs them.
extension CustomerLifecycle {
  static let month = 30 * day

  /// A yearly product paid monthly over a 12-month commitment: a transaction a month, each
  /// an ordinary period; sometimes cancelled inside the commitment (the remaining months are
  /// still billed, `autoRenewStatus` stays 1, the commitment expires at its end), else renewed
  /// into a new commitment.
  mutating func planCommitment(from start: Int64) {
    let yearly = P.subscriptionProducts.filter { $0.days == 365 }
    let product = yearly[random.int(0..<yearly.count)]
    let original = newId()
    let monthly = (product.price + 11) / 12
    let cancelledIn: Int? = random.chance(0.4) ? random.int(1..<11) : nil
    var commitmentStart = start
    var number: Int32 = 1
    var renewal = commitmentRenewal(
      original, product, monthly, ends: start + 12 * Self.month, at: start)
    var current = commitmentMonth(
      original, original: original, product, monthly, number: 1, from: start,
      commitmentStart: start)
    put(current, at: start)
    truth.note(
      original, product: product.id, entitlements: product.entitlements, at: start,
      customer: customer)
    announce(&renewal, .active, .subscribed, .initialBuy, about: current, at: start)
    while current.expiresDate!.milliseconds <= end.milliseconds {
      let periodStart = current.purchaseDate!.milliseconds
      let periodEnd = current.expiresDate!.milliseconds
      if let cancelledIn, Int(number) == cancelledIn,
        renewal.commitmentInfo?.commitmentAutoRenewStatus == .on
      {
        // The customer cancels: the commitment will not renew; the months go on.
        renewal.commitmentInfo?.commitmentAutoRenewStatus = .off
        announce(
          &renewal, .active, .didChangeRenewalStatus, .autoRenewDisabled, about: current,
          at: Self.into(periodStart, periodEnd, days: 10))
      }
      if number == 12 {
        if renewal.commitmentInfo?.commitmentAutoRenewStatus == .off {
          renewal.autoRenewStatus = .off
          renewal.expirationIntent = .customerCancelled
          announce(&renewal, .expired, .expired, .voluntary, about: current, at: periodEnd)
          return
        }
        commitmentStart = periodEnd
        number = 1
        renewal = commitmentRenewal(
          original, product, monthly, ends: periodEnd + 12 * Self.month, at: periodEnd)
      } else {
        number += 1
      }
      current = commitmentMonth(
        newId(), original: original, product, monthly, number: number, from: periodEnd,
        commitmentStart: commitmentStart)
      current.transactionReason = .renewal
      put(current, at: periodEnd)
      announce(&renewal, .active, .didRenew, nil, about: current, at: periodEnd)
    }
  }

  private func commitmentMonth(
    _ id: String, original: String, _ product: P.Subscription, _ monthly: Int64, number: Int32,
    from time: Int64, commitmentStart: Int64
  ) -> JWSTransactionDecodedPayload {
    var month = transaction(
      id, original: original, product: product.id, at: time, expires: time + Self.month)
    month.price = monthly
    month.billingPlanType = .monthly
    var info = TransactionCommitmentInfo()
    info.billingPeriodNumber = number
    info.totalBillingPeriods = 12
    info.commitmentExpiresDate = Timestamp(milliseconds: commitmentStart + 12 * Self.month)
    info.commitmentPrice = monthly * 12
    month.commitmentInfo = info
    return month
  }

  private func commitmentRenewal(
    _ original: String, _ product: P.Subscription, _ monthly: Int64, ends: Int64, at time: Int64
  ) -> JWSRenewalInfoDecodedPayload {
    var renewal = renewalInfo(original, product: product.id, at: time)
    renewal.renewalDate = Timestamp(milliseconds: time + Self.month)
    renewal.renewalPrice = monthly
    renewal.renewalBillingPlanType = .monthly
    var info = RenewalCommitmentInfo()
    info.commitmentAutoRenewStatus = .on
    info.commitmentAutoRenewProductId = product.id
    info.commitmentRenewalBillingPlanType = .monthly
    info.commitmentRenewalDate = Timestamp(milliseconds: ends)
    info.commitmentRenewalPrice = monthly * 12
    renewal.commitmentInfo = info
    return renewal
  }

  /// A group subscription with developer-hosted invitations: the purchaser buys 3 to 5 seats
  /// of a monthly product and invites members (their tokens are the truth's; the developer's
  /// backend claims their seats). Now and then seats are added within a period (a
  /// `SEAT_ADDITION` transaction; every transaction of the period carries the reason), a seat
  /// is refunded (the purchaser keeps access), or the purchaser renews with fewer seats.
  mutating func planGroup(from start: Int64) {
    let monthly = P.subscriptionProducts.filter { $0.days == 30 }
    let product = monthly[random.int(0..<monthly.count)]
    let original = newId()
    var seats = Int32(random.int(3..<6))
    let members = (0..<Int(seats) - 1).map { _ in Self.uuid(&random) }
    truth.noteGroup(original, members: members)
    var current = groupTransaction(original, original: original, product, seats: seats, at: start)
    var renewal = renewalInfo(original, product: product.id, at: start)
    renewal.renewalQuantity = seats
    put(current, at: start)
    truth.note(
      original, product: product.id, entitlements: product.entitlements, at: start,
      customer: customer)
    announce(&renewal, .active, .subscribed, .initialBuy, about: current, at: start)
    while current.expiresDate!.milliseconds <= end.milliseconds {
      let periodStart = current.purchaseDate!.milliseconds
      let periodEnd = current.expiresDate!.milliseconds
      let roll = random.unit()
      if roll < 0.15 {
        // Seats added mid-period: a transaction of its own, ending with the period.
        let added = Int32(random.int(1..<3))
        let at = Self.into(periodStart, periodEnd, days: 8)
        var addition = groupTransaction(
          newId(), original: original, product, seats: added, at: at, expires: periodEnd)
        addition.additionalTransactionReason = .seatAddition
        current.additionalTransactionReason = .seatAddition
        put(current, at: at)
        put(addition, at: at)
        seats += added
        renewal.renewalQuantity = seats
        announce(
          &renewal, .active, .didChangeRenewalPref, .increaseQuantity, about: addition, at: at)
      } else if roll < 0.25 {
        // One seat refunded: the purchaser's transaction keeps standing.
        var refunded = current
        refunded.multiSeatInfo?.revokedSeatQuantity = 1
        let at = Self.into(periodStart, periodEnd, days: 12)
        put(refunded, at: at)
        notify(.refund, .seats, refunded, .active, at: at)
        current = refunded
      } else if roll < 0.35, seats > 2 {
        // Fewer seats from the next renewal on.
        seats -= 1
        renewal.renewalQuantity = seats
        announce(
          &renewal, .active, .didChangeRenewalPref, .decreaseQuantity, about: current,
          at: Self.into(periodStart, periodEnd, days: 15))
      } else if roll < 0.40 {
        renewal.autoRenewStatus = .off
        announce(
          &renewal, .active, .didChangeRenewalStatus, .autoRenewDisabled, about: current,
          at: Self.into(periodStart, periodEnd, days: 20))
        renewal.expirationIntent = .customerCancelled
        announce(&renewal, .expired, .expired, .voluntary, about: current, at: periodEnd)
        return
      }
      current = groupTransaction(newId(), original: original, product, seats: seats, at: periodEnd)
      current.transactionReason = .renewal
      renewal = renewalInfo(original, product: product.id, at: periodEnd)
      renewal.renewalQuantity = seats
      put(current, at: periodEnd)
      announce(&renewal, .active, .didRenew, nil, about: current, at: periodEnd)
    }
  }

  private func groupTransaction(
    _ id: String, original: String, _ product: P.Subscription, seats: Int32, at time: Int64,
    expires: Int64? = nil
  ) -> JWSTransactionDecodedPayload {
    var payload = transaction(
      id, original: original, product: product.id, at: time,
      expires: expires ?? time + product.period, quantity: seats)
    // Apple's `price` of a multiseat purchase is the average per seat; the tiers say what
    // was charged.
    payload.price = product.price
    payload.multiSeatInfo = TransactionMultiSeatInfo(
      invitationManagement: .developer,
      priceTiers: [MultiSeatPriceTier(tierPrice: product.price, tierQuantity: seats)])
    return payload
  }
}
