/// The one place Apple's fields turn into facts: pure, total over what Apple may sign (a
/// payload without the identifiers a fact needs becomes no fact), and the same at ingest, in
/// the upcaster for rows stored before facts, and in the audit's re-derivation.
extension LedgerEvent.Body {
  /// The facts of `claims`; nil when they hold none the reducers could key (a transaction or
  /// renewal info seen alone without its identifiers).
  public init?(_ claims: AppleClaims) {
    switch claims {
    case .notification(let received):
      self = .notification(NotificationFacts(received))
    case .transaction(let observed):
      guard let facts = TransactionFacts(observed.transaction) else { return nil }
      self = .transaction(
        SignedTransactionFacts(transaction: facts, forwardedToken: observed.appAccountToken))
    case .renewalInfo(let observed):
      guard let facts = RenewalInfoFacts(observed.renewalInfo) else { return nil }
      self = .renewal(facts)
    case .status(let observed):
      self = .status(
        StatusFacts(
          originalTransactionId: observed.originalTransactionId,
          subscriptionGroupIdentifier: observed.subscriptionGroupIdentifier,
          status: observed.status, transaction: observed.transaction.flatMap(TransactionFacts.init),
          renewal: observed.renewalInfo.flatMap(RenewalInfoFacts.init)))
    }
  }
}

extension NotificationFacts {
  public init(_ received: NotificationClaims) {
    let notification = received.notification
    self.init(
      notificationType: notification.notificationType, subtype: notification.subtype,
      signedDate: notification.signedDate, status: notification.data?.status,
      transaction: received.transaction.flatMap(TransactionFacts.init),
      renewal: received.renewalInfo.flatMap(RenewalInfoFacts.init),
      unclaimSeatIds: notification.unclaimInfo?.unclaimSeatIds,
      appTransactionId: received.appTransaction?.appTransactionId)
  }
}

extension TransactionFacts {
  /// Nil when the payload lacks a transaction id: such a transaction cannot be keyed.
  public convenience init?(_ payload: JWSTransactionDecodedPayload) {
    self.init(
      transactionId: payload.transactionId, originalTransactionId: payload.originalTransactionId,
      productId: payload.productId,
      subscriptionGroupIdentifier: payload.subscriptionGroupIdentifier,
      type: payload.type, purchaseDate: payload.purchaseDate, expiresDate: payload.expiresDate,
      quantity: payload.quantity, appAccountToken: payload.appAccountToken,
      inAppOwnershipType: payload.inAppOwnershipType, isUpgraded: payload.isUpgraded,
      revocationDate: payload.revocationDate, revocationReason: payload.revocationReason,
      revocationType: payload.revocationType, revocationPercentage: payload.revocationPercentage,
      signedDate: payload.signedDate,
      terms: PriceTerms(
        price: payload.price, currency: payload.currency, offerType: payload.offerType,
        offerIdentifier: payload.offerIdentifier, offerDiscountType: payload.offerDiscountType,
        offerPeriod: payload.offerPeriod, environment: payload.environment,
        storefront: payload.storefront),
      plan: TransactionPlan(
        billingPlanType: payload.billingPlanType, commitment: payload.commitmentInfo,
        multiSeat: payload.multiSeatInfo,
        additionalTransactionReason: payload.additionalTransactionReason),
      appTransactionId: payload.appTransactionId, transactionReason: payload.transactionReason)
  }
}

extension RenewalInfoFacts {
  /// Nil when the payload lacks an original transaction id.
  public convenience init?(_ payload: JWSRenewalInfoDecodedPayload) {
    self.init(
      originalTransactionId: payload.originalTransactionId, productId: payload.productId,
      autoRenewProductId: payload.autoRenewProductId, autoRenewStatus: payload.autoRenewStatus,
      expirationIntent: payload.expirationIntent,
      isInBillingRetryPeriod: payload.isInBillingRetryPeriod,
      gracePeriodExpiresDate: payload.gracePeriodExpiresDate, renewalDate: payload.renewalDate,
      priceIncreaseStatus: payload.priceIncreaseStatus, appAccountToken: payload.appAccountToken,
      signedDate: payload.signedDate,
      terms: PriceTerms(
        price: payload.renewalPrice, currency: payload.currency, offerType: payload.offerType,
        offerIdentifier: payload.offerIdentifier, offerDiscountType: payload.offerDiscountType,
        offerPeriod: payload.offerPeriod, environment: payload.environment),
      plan: RenewalPlan(
        billingPlanType: payload.renewalBillingPlanType, commitment: payload.commitmentInfo,
        renewalQuantity: payload.renewalQuantity, multiSeat: payload.multiSeatInfo))
  }
}

extension LedgerEvent {
  /// The event of Apple's `claims`; nil when they hold no facts (see `Body.init(_:)`).
  public init?(claims: AppleClaims, recordedAt: Timestamp? = nil, key: String? = nil) {
    guard let body = Body(claims) else { return nil }
    self.init(body, recordedAt: recordedAt, key: key)
  }
}
