/// A one-time purchase's money: its charge, and the refunds that took it back.
extension RevenueTimeline {
  static func oneTime(_ record: TransactionRecord, commission: CommissionPolicy)
    -> RevenueTimeline
  {
    let facts = record.facts
    let money = TransactionMoney(facts)
    let attributes = MetricsAttributes(facts)
    var entries: [RevenueEntry] = []
    let rate = commission.rate(paidServiceBefore: nil)
    func entry(_ kind: RevenueEntry.Kind, _ date: Timestamp, _ amount: Int64) {
      entries.append(
        RevenueEntry(
          kind: kind, date: date, amount: amount,
          proceeds: commission.proceeds(of: amount, storefront: attributes.storefront, rate: rate),
          transactionId: facts.transactionId, originalTransactionId: facts.originalTransactionId,
          attributes: attributes))
    }
    if let bought = facts.purchaseDate, money.gross > 0 { entry(.purchase, bought, money.gross) }
    for refund in refunds(of: record, money: money) { entry(refund.0, refund.1, refund.2) }
    return RevenueTimeline(
      originalTransactionId: facts.transactionId, isSubscription: false,
      firstStart: facts.purchaseDate, segments: [], entries: entries)
  }

  /// Refund entries of a transaction (rules R1–R4): a refund at its `revocationDate`, its
  /// reversal at the first evidence that the transaction stands again, a seat refund at the
  /// snapshot that reports it. Family revocations are not refunds (the member's transaction
  /// is not counted anyway).
  static func refunds(of record: TransactionRecord, money: TransactionMoney)
    -> [(RevenueEntry.Kind, Timestamp, Int64)]
  {
    var found: [(RevenueEntry.Kind, Timestamp, Int64)] = []
    func entry(_ kind: RevenueEntry.Kind, _ date: Timestamp, _ amount: Int64) {
      found.append((kind, date, amount))
    }
    let facts = record.facts
    // A transaction that cost nothing (a free trial) returns nothing: not a refund.
    guard money.gross > 0 else { return [] }
    // Seats refunded before the purchase was revoked whole are not returned twice.
    var seatsReturned: Int64 = 0
    for refund in record.seatRefunds {
      let amount = money.refunded(seats: refund.seats, of: facts)
      entry(.refund, refund.date, amount)
      seatsReturned += amount
    }
    for (revocation, reinstated) in record.refundHistory where revocation.type != .familyRevoke {
      guard let date = revocation.date ?? revocation.signedDate else { continue }
      let amount = max(0, money.refunded(percentage: revocation.percentage) - seatsReturned)
      entry(.refund, date, amount)
      if let reinstated { entry(.refundReversed, reinstated, amount) }
    }
    return found
  }
}
