import StoreLedgerCore

extension CustomerLifecycle {
  /// One to three consumable purchases; some draw a consumption request and a refund
  /// (granted or declined).
  mutating func planConsumables(from start: Int64) {
    for _ in 0..<random.int(1..<4) {
      let time =
        start + Int64(random.int(0..<(max(1, Int((end.milliseconds - start) / Self.day) - 10))))
        * Self.day
      let quantity = Int32(random.int(1..<4))
      var gems = transaction(
        newId(), original: nil, product: P.consumable, type: .consumable, at: time,
        quantity: quantity)
      put(gems, at: time)
      notify(.oneTimeCharge, nil, gems, nil, at: time)
      truth.note(purchase: gems.transactionId!, revoked: false, at: Timestamp(milliseconds: time))
      truth.noteOneTime(
        gems.transactionId!, customer: customer, entitlements: P.entitlements[P.consumable]!,
        at: Timestamp(milliseconds: time), endsAt: nil, consumable: true)
      truth.credit("\(customer)/\(P.consumable)", Int64(quantity))
      guard random.chance(0.15) else { continue }
      notify(.consumptionRequest, nil, gems, nil, at: time + Self.day)
      if random.chance(0.6) {
        gems.revocationDate = Timestamp(milliseconds: time + 3 * Self.day)
        gems.revocationReason = .other
        gems.revocationType = .refundFull
        put(gems, at: time + 3 * Self.day)
        notify(.refund, nil, gems, nil, at: time + 3 * Self.day)
        truth.note(purchase: gems.transactionId!, revoked: true, at: gems.revocationDate!)
        truth.credit("\(customer)/\(P.consumable)", -Int64(quantity))
      } else {
        notify(.refundDeclined, nil, gems, nil, at: time + 3 * Self.day)
      }
    }
  }

  /// A non-consumable; family-shared ones are sometimes revoked.
  mutating func planNonConsumable(at time: Int64) {
    let shared = random.chance(0.3)
    var unlock = transaction(
      newId(), original: nil, product: P.nonConsumable, type: .nonConsumable, at: time,
      ownership: shared ? .familyShared : .purchased)
    put(unlock, at: time)
    notify(.oneTimeCharge, nil, unlock, nil, at: time)
    truth.note(purchase: unlock.transactionId!, revoked: false, at: Timestamp(milliseconds: time))
    truth.noteOneTime(
      unlock.transactionId!, customer: customer, entitlements: P.entitlements[P.nonConsumable]!,
      at: Timestamp(milliseconds: time), endsAt: nil, consumable: false)
    let revokedAt = time + 30 * Self.day
    guard shared, random.chance(0.5), revokedAt < end.milliseconds else { return }
    unlock.revocationDate = Timestamp(milliseconds: revokedAt)
    unlock.revocationReason = .other
    unlock.revocationType = .familyRevoke
    put(unlock, at: revokedAt)
    notify(.revoke, nil, unlock, nil, at: revokedAt)
    truth.note(purchase: unlock.transactionId!, revoked: true, at: unlock.revocationDate!)
  }

  mutating func planNonRenewing(at time: Int64) {
    let pass = transaction(
      newId(), original: nil, product: P.nonRenewing, type: .nonRenewingSubscription, at: time)
    put(pass, at: time)
    notify(.oneTimeCharge, nil, pass, nil, at: time)
    truth.note(purchase: pass.transactionId!, revoked: false, at: Timestamp(milliseconds: time))
    truth.noteOneTime(
      pass.transactionId!, customer: customer, entitlements: P.entitlements[P.nonRenewing]!,
      at: Timestamp(milliseconds: time),
      endsAt: Timestamp(milliseconds: time + P.nonRenewingDays * Self.day), consumable: false)
  }
}
