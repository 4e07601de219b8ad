extension LedgerView {
  /// What the log says about purchase `transactionId` at `time`, for a refund request; nil
  /// when the log holds no such transaction.
  public func consumptionFacts(of transactionId: String, at time: Timestamp) -> ConsumptionFacts? {
    guard
      let record = state.transactions.values.first(where: {
        $0.facts.transactionId == transactionId
      })
    else { return nil }
    let facts = record.facts
    let chain = state.transactions.values.filter {
      $0.facts.originalTransactionId == facts.originalTransactionId
    }
    let token = accountToken(ofChain: facts.originalTransactionId, records: chain)
    let delivered = token != nil
    return ConsumptionFacts(
      transactionId: transactionId, productId: facts.productId, productType: facts.type,
      delivered: delivered,
      deliveryReason: delivered
        ? "the ledger granted the purchase to an account"
        : "no account holds the purchase: the ledger never granted it",
      consumedMilliunits: facts.type == .consumable && delivered
        ? consumed(record, account: token, at: time) : nil,
      sampleContentProvided: facts.productId.map(catalog.providesSample) ?? false,
      earlierRefunds: earlierRefunds(before: record, account: token, at: time),
      familyShared: facts.inAppOwnershipType == .familyShared)
  }

  /// The share of `purchase`'s units spent: the account's debits of the product go to its
  /// purchases oldest first, refunded units taken out first.
  private func consumed(_ purchase: TransactionRecord, account: String?, at time: Timestamp)
    -> Int32
  {
    guard let productId = purchase.facts.productId else { return 0 }
    let units = catalog.units(of: productId)
    let purchases = state.transactions.values.filter {
      $0.facts.productId == productId && $0.facts.type == .consumable
        && accountToken(ofChain: $0.facts.originalTransactionId, records: [$0]) == account
        && ($0.facts.purchaseDate ?? time) <= time
    }.sorted(by: Self.oldestPurchaseFirst)
    var debited = state.debits.values.filter {
      $0.debit.appAccountToken == account && $0.debit.productId == productId
        && ($0.debit.debitedAt ?? time) <= time
    }.reduce(Int64(0)) { $0 + $1.debit.quantity }
    for record in purchases {
      let bought = record.facts.quantity * units
      let available = bought - refundedUnits(of: record, bought, at: time)
      let spent = min(max(debited, 0), available)
      debited -= spent
      if record.facts.transactionId == purchase.facts.transactionId {
        guard bought > 0 else { return 0 }
        return Int32(min(100_000, spent * 100_000 / bought))
      }
    }
    return 0
  }

  private func earlierRefunds(
    before purchase: TransactionRecord, account: String?, at time: Timestamp
  )
    -> Int
  {
    guard let account else { return 0 }
    return state.transactions.values.filter {
      $0.facts.transactionId != purchase.facts.transactionId && $0.isRevoked(at: time)
        && $0.revocation?.type != .familyRevoke
        && accountToken(ofChain: $0.facts.originalTransactionId, records: [$0]) == account
    }.count
  }

  static func oldestPurchaseFirst(_ a: TransactionRecord, _ b: TransactionRecord) -> Bool {
    let (x, y) = (a.facts.purchaseDate?.milliseconds ?? 0, b.facts.purchaseDate?.milliseconds ?? 0)
    return x != y ? x < y : a.facts.transactionId < b.facts.transactionId
  }
}
