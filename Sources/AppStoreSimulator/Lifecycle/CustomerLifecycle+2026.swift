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

  /// A group subscription: the purchaser buys 3 to 5 seats of a monthly product and invites
  /// members. With developer-hosted invitations (60 %) members get no transaction (their
  /// tokens are the truth's; the developer's backend claims their seats); now and then seats
  /// are added within a period (a `SEAT_ADDITION` transaction; every transaction of the period
  /// carries the reason), a seat is refunded (the purchaser keeps access), or the purchaser
  /// renews with fewer seats. With Apple-hosted invitations each member who joins holds a
  /// transaction of their own (`inAppOwnershipType` `ASSIGNED`, their own chain and download:
  /// our reading, Apple's pages do not say), renewed and ended with the group's.
  mutating func planGroup(from start: Int64) {
    let monthly = P.subscriptionProducts.filter { $0.days == 30 }
    let product = monthly[random.int(0..<monthly.count)]
    let original = newId()
    var seats = Int32(random.int(3..<6))
    let management: InvitationManagement = random.chance(0.4) ? .apple : .developer
    let members = (0..<Int(seats) - 1).map { _ in Self.uuid(&random) }
    var assigned: [AssignedMember] = []
    if management == .developer {
      truth.noteGroup(original, members: members)
    } else {
      for (index, token) in members.enumerated() {
        let member = AssignedMember(
          customer: "\(customer)-member-\(index)", token: token, original: newId(),
          download: String(Int64(appTransactionId)! + 500_000_000_000 + Int64(index)))
        truth.add(.init(id: member.customer, appAccountToken: token))
        assigned.append(member)
      }
    }
    var current = groupTransaction(
      original, original: original, product, seats: seats, at: start, management: management)
    var renewal = renewalInfo(original, product: product.id, at: start)
    Self.renew(&renewal, seats: seats, of: product)
    put(current, at: start)
    truth.note(
      original, product: product.id, entitlements: product.entitlements, at: start,
      customer: customer)
    announce(&renewal, .active, .subscribed, .initialBuy, about: current, at: start)
    for member in assigned {
      // Each member joins within days of the purchase, for the purchaser's period.
      let joined = start + Int64(random.int(1..<6)) * Self.day
      assign(member, product, seats: seats, from: joined, to: current, type: .subscribed)
    }
    while current.expiresDate!.milliseconds <= end.milliseconds {
      let periodStart = current.purchaseDate!.milliseconds
      let periodEnd = current.expiresDate!.milliseconds
      // Apple-hosted groups change only by renewals and cancellation here: which member a
      // seat refund or a smaller renewal removes is Apple's choice, not documented.
      let roll = random.unit()
      if management == .apple, (0.15..<0.35).contains(roll) {
        // No seat refund or reduction: the period simply renews.
      } else if roll < 0.15 {
        // Seats added mid-period: a transaction of its own, ending with the period.
        let added = Int32(random.int(1..<3))
        let at = Self.into(periodStart, periodEnd, days: 8)
        var addition = groupTransaction(
          newId(), original: original, product, seats: added, at: at, expires: periodEnd,
          management: management)
        addition.additionalTransactionReason = .seatAddition
        current.additionalTransactionReason = .seatAddition
        put(current, at: at)
        put(addition, at: at)
        seats += added
        Self.renew(&renewal, seats: seats, of: product)
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
        Self.renew(&renewal, seats: seats, of: product)
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
        for member in assigned { expire(member, product, at: periodEnd) }
        return
      }
      current = groupTransaction(
        newId(), original: original, product, seats: seats, at: periodEnd, management: management)
      current.transactionReason = .renewal
      renewal = renewalInfo(original, product: product.id, at: periodEnd)
      Self.renew(&renewal, seats: seats, of: product)
      put(current, at: periodEnd)
      announce(&renewal, .active, .didRenew, nil, about: current, at: periodEnd)
      for member in assigned {
        assign(member, product, seats: seats, from: periodEnd, to: current, type: .didRenew)
      }
    }
  }

  /// A member of a group with Apple-hosted invitations: another Apple Account, with its own
  /// token, chain and download.
  struct AssignedMember {
    let customer: String
    let token: String
    let original: String
    let download: String
  }

  /// The member's own transaction for the purchaser's period `group` (from `time` on), and
  /// the notification Apple sends the developer about it.
  private mutating func assign(
    _ member: AssignedMember, _ product: P.Subscription, seats: Int32, from time: Int64,
    to group: JWSTransactionDecodedPayload, type: NotificationType
  ) {
    let id = type == .subscribed ? member.original : newId()
    var own = transaction(
      id, original: member.original, product: product.id, at: time,
      expires: group.expiresDate!.milliseconds, quantity: seats, ownership: .assigned)
    own.appAccountToken = member.token
    own.appTransactionId = member.download
    own.price = product.price
    own.multiSeatInfo = TransactionMultiSeatInfo(
      invitationManagement: .apple,
      priceTiers: [MultiSeatPriceTier(tierPrice: product.price, tierQuantity: seats)])
    own.transactionReason = type == .subscribed ? .purchase : .renewal
    var renewal = memberRenewal(member, product, at: time)
    if type == .subscribed {
      truth.note(
        member.original, product: product.id, entitlements: product.entitlements, at: time,
        customer: member.customer)
    }
    put(own, at: time, owner: member.customer)
    announce(
      &renewal, .active, type, type == .subscribed ? .initialBuy : nil, about: own, at: time)
  }

  private mutating func expire(_ member: AssignedMember, _ product: P.Subscription, at time: Int64)
  {
    var renewal = memberRenewal(member, product, at: time)
    renewal.autoRenewStatus = .off
    renewal.expirationIntent = .customerCancelled
    guard
      let last = steps.reversed().compactMap({ step -> JWSTransactionDecodedPayload? in
        guard case .put(let transaction) = step.action,
          transaction.originalTransactionId == member.original
        else { return nil }
        return transaction
      }).first
    else { return }
    announce(&renewal, .expired, .expired, .voluntary, about: last, at: time)
  }

  private func memberRenewal(_ member: AssignedMember, _ product: P.Subscription, at time: Int64)
    -> JWSRenewalInfoDecodedPayload
  {
    var renewal = renewalInfo(member.original, product: product.id, at: time)
    renewal.appAccountToken = member.token
    renewal.appTransactionId = member.download
    return renewal
  }

  /// The renewal info of a multiseat subscription: the seats the next renewal charges for,
  /// and (Notifications 2.23) its price tiers (`renewalPrice` stays the price per seat, which
  /// with one tier is Apple's average).
  private static func renew(
    _ renewal: inout JWSRenewalInfoDecodedPayload, seats: Int32, of product: P.Subscription
  ) {
    renewal.renewalQuantity = seats
    renewal.multiSeatInfo = RenewalMultiSeatInfo(
      renewalPriceTiers: [MultiSeatPriceTier(tierPrice: product.price, tierQuantity: seats)])
  }

  private func groupTransaction(
    _ id: String, original: String, _ product: P.Subscription, seats: Int32, at time: Int64,
    expires: Int64? = nil, management: InvitationManagement = .developer
  ) -> JWSTransactionDecodedPayload {
    var payload = transaction(
      id, original: original, product: product.id, at: time,
      expires: expires ?? time + product.period, quantity: seats)
    // Apple's `price` of a multiseat purchase is the average per seat; the tiers say what
    // was charged.
    payload.price = product.price
    payload.multiSeatInfo = TransactionMultiSeatInfo(
      invitationManagement: management,
      priceTiers: [MultiSeatPriceTier(tierPrice: product.price, tierQuantity: seats)])
    return payload
  }
}
