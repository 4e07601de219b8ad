/// The answers a folded state gives at any time T, through a product catalog. Pure: the
/// caller chooses T (there is no clock here).
public struct LedgerView: Sendable {
  public let state: LedgerState
  public let catalog: ProductCatalog
  public let options: ProjectionOptions
  /// Auto-renewable chains by `originalTransactionId`.
  public let chains: [String: SubscriptionChain]

  public init(
    _ state: LedgerState, catalog: ProductCatalog = .empty, options: ProjectionOptions = .init()
  ) {
    self.state = state
    self.catalog = catalog
    self.options = options
    // Grouped and ordered by the records' places in the state: each record is copied once,
    // into its chain, rather than moved at every step of the sort.
    let records = state.transactions
    var grouped: [String: [Dictionary<RecordKey, TransactionRecord>.Index]] = [:]
    var index = records.startIndex
    while index != records.endIndex {
      let facts = records.values[index].facts
      if facts.isAutoRenewable { grouped[facts.originalTransactionId, default: []].append(index) }
      records.formIndex(after: &index)
    }
    var chains: [String: SubscriptionChain] = [:]
    chains.reserveCapacity(grouped.count)
    for (id, places) in grouped {
      let evidence = state.subscription(id)
      let ordered =
        places.count > 1
        ? places.sorted { Self.newestPurchaseFirst(records.values[$0], records.values[$1]) }
        : places
      chains[id] = SubscriptionChain(
        originalTransactionId: id, transactions: ordered.map { records.values[$0] },
        renewals: evidence?.renewals ?? RenewalHistory(),
        appleStatuses: evidence?.appleStatuses ?? AppleStatusHistory())
    }
    self.chains = chains
  }

  /// Every projection at `time`, in a stable order.
  public func snapshot(at time: Timestamp) -> LedgerSnapshot {
    let moment = LedgerMoment(self, at: time)
    return LedgerSnapshot(
      asOf: time, subscriptions: moment.subscriptions.map(\.view),
      purchases: moment.purchases.map(\.view), consumables: moment.consumables,
      revocations: revocations(at: time), entitlements: entitlements(in: moment),
      seatClaims: seatClaimViews(at: time), consentRescinded: consentViews(at: time),
      supportGrants: supportGrantViews(at: time))
  }

  // MARK: Accounts

  /// The account a purchase chain belongs to (at `time`; now when nil): the account it was
  /// transferred to by then, unless Apple signed a token into its data after the transfer;
  /// else the token Apple signed into its newest transaction that has one, else its renewal
  /// info's, else the one the backend forwarded with a transaction, else the backend's link.
  public func accountToken(
    ofChain originalTransactionId: String, records: [TransactionRecord], at time: Timestamp? = nil
  ) -> String? {
    let signed = records.filter { $0.facts.appAccountToken != nil }
      .max {
        ($0.facts.signedDate ?? .init(milliseconds: .min))
          < ($1.facts.signedDate ?? .init(milliseconds: .min))
      }
    let renewal = state.subscription(originalTransactionId)?.renewals.newest
    if let transfer = ownershipTransfer(ofChain: originalTransactionId, records: records, at: time)
    {
      return transfer.appAccountToken
    }
    if let token = signed?.facts.appAccountToken { return token }
    if let token = renewal?.appAccountToken { return token }
    if let token = records.compactMap(\.forwardedAccountToken).max() { return token }
    return state.links[originalTransactionId]?.appAccountToken
  }

  /// The transfer that decides who holds the chain at `time`: the newest made by then, when
  /// Apple signed no token into the chain's data after it (Apple's word, later, wins).
  public func ownershipTransfer(
    ofChain originalTransactionId: String, records: [TransactionRecord], at time: Timestamp? = nil
  ) -> LinkRecord? {
    guard let transfer = state.transfer(ofChain: originalTransactionId, at: time) else {
      return nil
    }
    let moved = transfer.linkedAt?.milliseconds ?? .min
    let signedLater = records.contains {
      $0.facts.appAccountToken != nil && ($0.facts.signedDate?.milliseconds ?? .min) > moved
    }
    let renewedLater = state.subscription(originalTransactionId)?.renewals.records.contains {
      $0.appAccountToken != nil && ($0.signedDate?.milliseconds ?? .min) > moved
    }
    return signedLater || renewedLater == true ? nil : transfer
  }

  // MARK: Subscriptions

  public func subscriptions(at time: Timestamp) -> [SubscriptionView] {
    chains.keys.sorted().compactMap { subscription($0, at: time) }
  }

  public func subscription(_ originalTransactionId: String, at time: Timestamp)
    -> SubscriptionView?
  {
    guard let chain = chains[originalTransactionId], let result = chain.evaluate(at: time)
    else { return nil }
    return subscription(chain, result, at: time)
  }

  func subscription(
    _ chain: SubscriptionChain, _ result: SubscriptionChain.Evaluation, at time: Timestamp
  ) -> SubscriptionView {
    let originalTransactionId = chain.originalTransactionId
    let facts = result.current.facts
    let renewal = chain.renewals.inForce(at: time)
    let grace = result.renewal?.gracePeriodExpiresDate ?? renewal?.gracePeriodExpiresDate
    return SubscriptionView(
      originalTransactionId: originalTransactionId, productId: result.productId,
      subscriptionGroupIdentifier: facts.subscriptionGroupIdentifier,
      appAccountToken: accountToken(
        ofChain: originalTransactionId, records: chain.transactions, at: time),
      inAppOwnershipType: facts.inAppOwnershipType?.rawValue, status: result.status.rawValue,
      entitled: options.isEntitled(result.status)
        && options.entitles(in: facts.terms?.environment),
      expiresDate: result.expiresDate,
      gracePeriodExpiresDate: grace, autoRenewStatus: renewal?.autoRenewStatus?.rawValue,
      autoRenewProductId: renewal?.autoRenewProductId,
      expirationIntent: renewal?.facts.expirationIntent?.rawValue,
      priceIncreaseStatus: renewal?.facts.priceIncreaseStatus?.rawValue,
      renewalDate: renewal?.facts.renewalDate,
      isInBillingRetryPeriod: renewal?.isInBillingRetryPeriod,
      environment: (facts.terms?.environment ?? renewal?.facts.terms?.environment)?.rawValue,
      price: facts.terms?.price, currency: facts.terms?.currency,
      offerType: facts.terms?.offerType?.rawValue, offerIdentifier: facts.terms?.offerIdentifier,
      offerDiscountType: facts.terms?.offerDiscountType?.rawValue,
      offerPeriod: facts.terms?.offerPeriod, renewalPrice: renewal?.facts.terms?.price,
      renewalCurrency: renewal?.facts.terms?.currency,
      storefront: facts.terms?.storefront ?? renewal?.facts.terms?.storefront,
      transactionId: facts.transactionId,
      rule: result.rule.rawValue, appleStatus: chain.appleStatus(at: time)?.status.rawValue,
      billingPlan: BillingPlanView(facts, renewal: renewal?.facts),
      seats: seats(chain, current: result.current, renewal: renewal, at: time))
  }

  // MARK: One-time purchases

  public func purchases(at time: Timestamp) -> [PurchaseView] {
    purchaseRecords(at: time).map { purchase($0, at: time) }
  }

  /// The non-consumable and non-renewing purchases made by `time`, by transaction id.
  func purchaseRecords(at time: Timestamp) -> [TransactionRecord] {
    state.transactions.values
      .filter { $0.facts.type == .nonConsumable || $0.facts.type == .nonRenewingSubscription }
      .filter { ($0.facts.purchaseDate ?? time) <= time }
      .sorted { $0.facts.transactionId < $1.facts.transactionId }
  }

  func purchase(_ record: TransactionRecord, at time: Timestamp) -> PurchaseView {
    let facts = record.facts
    let end =
      facts.type == .nonRenewingSubscription
      ? facts.productId.flatMap { catalog.nonRenewingEnd(of: $0, purchasedAt: facts.purchaseDate) }
      : nil
    return PurchaseView(
      transactionId: facts.transactionId, originalTransactionId: facts.originalTransactionId,
      productId: facts.productId, type: facts.type?.rawValue,
      appAccountToken: accountToken(
        ofChain: facts.originalTransactionId, records: [record], at: time),
      entitled: !record.isRevoked(at: time) && end.map { time < $0 } ?? true
        && options.entitles(in: facts.terms?.environment), expiresDate: end,
      environment: facts.terms?.environment?.rawValue, price: facts.terms?.price,
      currency: facts.terms?.currency, offerType: facts.terms?.offerType?.rawValue,
      offerIdentifier: facts.terms?.offerIdentifier)
  }

  // MARK: Revocations

  public func revocations(at time: Timestamp) -> [RevocationView] {
    state.transactions.values
      .compactMap { record -> RevocationView? in
        guard let revocation = record.revocation, (revocation.date ?? time) <= time else {
          return nil
        }
        return RevocationView(
          transactionId: record.facts.transactionId,
          originalTransactionId: record.facts.originalTransactionId,
          productId: record.facts.productId, revocationDate: revocation.date,
          revocationReason: revocation.reason?.rawValue, revocationType: revocation.type?.rawValue,
          revocationPercentage: revocation.percentage, reversed: !record.isRevoked)
      }
      .sorted { $0.transactionId < $1.transactionId }
  }

  static func newestPurchaseFirst(_ lhs: TransactionRecord, _ rhs: TransactionRecord) -> Bool {
    let left = (lhs.facts.purchaseDate?.milliseconds ?? .min, lhs.facts.transactionId)
    let right = (rhs.facts.purchaseDate?.milliseconds ?? .min, rhs.facts.transactionId)
    return left > right
  }
}
