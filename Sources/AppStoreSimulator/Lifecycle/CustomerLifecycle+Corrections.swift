import StoreLedgerCore

/// What the App Store does to a purchase after the fact: renewal dates extended, refunds (some
/// reversed), and Family Sharing revoked.
extension CustomerLifecycle {
  mutating func extend(
    _ current: inout JWSTransactionDecodedPayload, by days: Int64, at time: Int64
  ) {
    current.expiresDate = Timestamp(
      milliseconds: current.expiresDate!.milliseconds + days * Self.day)
    put(current, at: time)
    notify(.renewalExtended, nil, current, .active, at: time)
  }

  /// A refund of the period in force: revoked, sometimes reversed later.
  mutating func refundCurrent(_ current: inout JWSTransactionDecodedPayload, at time: Int64)
    -> Bool
  {
    let start = current.purchaseDate!.milliseconds
    // Only the purchaser asks for a refund: Apple sends no CONSUMPTION_REQUEST for a
    // family-shared transaction (its consumption endpoint refuses one, 4000185).
    if current.inAppOwnershipType != .familyShared {
      notify(.consumptionRequest, nil, current, .active, at: start + (time - start) / 2)
    }
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

  /// A refund of the newest earlier period not refunded yet (Apple refunds a transaction once).
  mutating func refundOlder(_ current: JWSTransactionDecodedPayload, at time: Int64) {
    var newest: [String: JWSTransactionDecodedPayload] = [:]
    var order: [String] = []
    for step in steps.reversed() {
      guard case .put(let transaction) = step.action, let id = transaction.transactionId,
        transaction.originalTransactionId == current.originalTransactionId,
        id != current.transactionId, newest[id] == nil
      else { continue }
      newest[id] = transaction
      order.append(id)
    }
    guard
      let older = order.lazy.compactMap({ newest[$0] }).first(where: {
        $0.isUpgraded != true && $0.revocationDate == nil
      })
    else { return }
    var refunded = older
    refunded.revocationDate = Timestamp(milliseconds: time)
    refunded.revocationReason = .other
    refunded.revocationType = .refundFull
    put(refunded, at: time)
    notify(.refund, nil, refunded, .active, at: time)
  }

  mutating func revokeFamily(_ current: inout JWSTransactionDecodedPayload, at time: Int64) {
    current.revocationDate = Timestamp(milliseconds: time)
    current.revocationReason = .other
    current.revocationType = .familyRevoke
    put(current, at: time)
    notify(.revoke, nil, current, .revoked, at: time)
  }
}
