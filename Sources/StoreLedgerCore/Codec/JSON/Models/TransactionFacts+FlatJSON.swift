/// A stored signed transaction's facts, read from its members without making the payload.
extension TransactionFacts {
  private typealias Keys = JWSTransactionDecodedPayload.MemberNames

  /// Reads the members exactly as ``JWSTransactionDecodedPayload/init(flat:)`` does (the
  /// tests compare both on every generated and Apple-signed payload).
  convenience init?(flat object: JSONObjectReader) throws {
    self.init(
      transactionId: try object.string(Keys.transactionId),
      originalTransactionId: try object.string(Keys.originalTransactionId),
      productId: try object.string(Keys.productId),
      subscriptionGroupIdentifier: try object.string(Keys.subscriptionGroupIdentifier),
      type: try object.enumeration(Keys.type),
      purchaseDate: try object.timestamp(Keys.purchaseDate),
      expiresDate: try object.timestamp(Keys.expiresDate),
      quantity: try object.integer(Keys.quantity),
      appAccountToken: try object.string(Keys.appAccountToken),
      inAppOwnershipType: try object.enumeration(Keys.inAppOwnershipType),
      isUpgraded: try object.bool(Keys.isUpgraded),
      revocationDate: try object.timestamp(Keys.revocationDate),
      revocationReason: try object.enumeration(Keys.revocationReason),
      revocationType: try object.enumeration(Keys.revocationType),
      revocationPercentage: try object.integer(Keys.revocationPercentage),
      signedDate: try object.timestamp(Keys.signedDate),
      terms: PriceTerms(
        price: try object.integer(Keys.price), currency: try object.string(Keys.currency),
        offerType: try object.enumeration(Keys.offerType),
        offerIdentifier: try object.string(Keys.offerIdentifier),
        offerDiscountType: try object.enumeration(Keys.offerDiscountType),
        offerPeriod: try object.string(Keys.offerPeriod),
        environment: try object.enumeration(Keys.environment),
        storefront: try object.string(Keys.storefront)),
      plan: TransactionPlan(
        billingPlanType: try object.enumeration(Keys.billingPlanType),
        commitment: try object.decoded(Keys.commitmentInfo),
        multiSeat: try object.decoded(Keys.multiSeatInfo),
        additionalTransactionReason: try object.enumeration(Keys.additionalTransactionReason)),
      appTransactionId: try object.string(Keys.appTransactionId),
      transactionReason: try object.enumeration(Keys.transactionReason))
  }
}
