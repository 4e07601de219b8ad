/// A stored renewal info's facts, read from its members without making the payload.
extension RenewalInfoFacts {
  private typealias Keys = JWSRenewalInfoDecodedPayload.MemberNames

  /// Reads the members exactly as ``JWSRenewalInfoDecodedPayload/init(flat:)`` does (the tests
  /// compare both on every generated and Apple-signed payload).
  convenience init?(flat object: JSONObjectReader) throws {
    self.init(
      originalTransactionId: try object.string(Keys.originalTransactionId),
      productId: try object.string(Keys.productId),
      autoRenewProductId: try object.string(Keys.autoRenewProductId),
      autoRenewStatus: try object.enumeration(Keys.autoRenewStatus),
      expirationIntent: try object.enumeration(Keys.expirationIntent),
      isInBillingRetryPeriod: try object.bool(Keys.isInBillingRetryPeriod),
      gracePeriodExpiresDate: try object.timestamp(Keys.gracePeriodExpiresDate),
      renewalDate: try object.timestamp(Keys.renewalDate),
      priceIncreaseStatus: try object.enumeration(Keys.priceIncreaseStatus),
      appAccountToken: try object.string(Keys.appAccountToken),
      signedDate: try object.timestamp(Keys.signedDate),
      terms: PriceTerms(
        price: try object.integer(Keys.renewalPrice), currency: try object.string(Keys.currency),
        offerType: try object.enumeration(Keys.offerType),
        offerIdentifier: try object.string(Keys.offerIdentifier),
        offerDiscountType: try object.enumeration(Keys.offerDiscountType),
        offerPeriod: try object.string(Keys.offerPeriod),
        environment: try object.enumeration(Keys.environment)),
      plan: RenewalPlan(
        billingPlanType: try object.enumeration(Keys.renewalBillingPlanType),
        commitment: try object.decoded(Keys.commitmentInfo),
        renewalQuantity: try object.integer(Keys.renewalQuantity),
        multiSeat: try object.decoded(Keys.multiSeatInfo)))
  }
}
