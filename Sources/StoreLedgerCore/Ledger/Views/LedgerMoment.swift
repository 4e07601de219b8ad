/// A ``LedgerView``'s answers at one time that others are derived from, each computed once:
/// entitlements are decided from the very subscriptions, purchases and balances a snapshot
/// lists, rather than by evaluating every chain a second time.
struct LedgerMoment {
  /// One chain evaluated at the time, with the view made from the evaluation.
  struct Subscription {
    var chain: SubscriptionChain
    var result: SubscriptionChain.Evaluation
    var view: SubscriptionView
  }

  /// One non-consumable or non-renewing purchase made by the time.
  struct Purchase {
    var record: TransactionRecord
    var view: PurchaseView
  }

  let time: Timestamp
  /// In `originalTransactionId` order; chains with no period begun by the time are left out.
  let subscriptions: [Subscription]
  /// In `transactionId` order.
  let purchases: [Purchase]
  let consumables: [ConsumableView]

  init(_ view: LedgerView, at time: Timestamp) {
    self.time = time
    subscriptions = view.chains.keys.sorted().compactMap { id in
      guard let chain = view.chains[id], let result = chain.evaluate(at: time) else { return nil }
      return Subscription(
        chain: chain, result: result, view: view.subscription(chain, result, at: time))
    }
    purchases = view.purchaseRecords(at: time).map {
      Purchase(record: $0, view: view.purchase($0, at: time))
    }
    consumables = view.consumables(at: time)
  }
}
