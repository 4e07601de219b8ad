extension LedgerView {
  /// Consumable balances per (account, product) at `time`, in units: purchased − refunded −
  /// debited. A full refund takes back every unit of the purchase, a prorated one its share
  /// (rounded up); a reversed refund takes back nothing. Balances may go negative.
  public func consumables(at time: Timestamp) -> [ConsumableView] {
    var balances: [BalanceKey: ConsumableView] = [:]
    for record in state.transactions.values where record.facts.type == .consumable {
      let facts = record.facts
      guard let productId = facts.productId, (facts.purchaseDate ?? time) <= time else {
        continue
      }
      let token = accountToken(ofChain: facts.originalTransactionId, records: [record], at: time)
      let units = facts.quantity * catalog.units(of: productId)
      let key = BalanceKey(appAccountToken: token, productId: productId)
      balances[key, default: .empty(key)].purchased += units
      balances[key, default: .empty(key)].refunded += refundedUnits(of: record, units, at: time)
      if let environment = facts.terms?.environment?.rawValue,
        balances[key]?.environments.contains(environment) == false
      {
        balances[key]?.environments.append(environment)
        balances[key]?.environments.sort()
      }
    }
    for record in state.debits.values where (record.debit.debitedAt ?? time) <= time {
      let key = BalanceKey(
        appAccountToken: record.debit.appAccountToken, productId: record.debit.productId)
      balances[key, default: .empty(key)].debited += record.debit.quantity
    }
    return balances.values.sorted {
      ($0.appAccountToken ?? "", $0.productId) < ($1.appAccountToken ?? "", $1.productId)
    }
  }

  func refundedUnits(of record: TransactionRecord, _ units: Int64, at time: Timestamp) -> Int64 {
    guard record.isRevoked(at: time), let revocation = record.revocation else { return 0 }
    guard revocation.type == .refundProrated, let share = revocation.percentage else {
      return units
    }
    let clamped = Int64(min(max(share, 0), 100_000))
    return (units * clamped + 99_999) / 100_000
  }
}

struct BalanceKey: Hashable {
  var appAccountToken: String?
  var productId: String
}

extension ConsumableView {
  static func empty(_ key: BalanceKey) -> ConsumableView {
    ConsumableView(
      appAccountToken: key.appAccountToken, productId: key.productId, purchased: 0, refunded: 0,
      debited: 0)
  }
}
