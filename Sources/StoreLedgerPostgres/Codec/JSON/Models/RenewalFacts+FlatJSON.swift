import StoreLedgerCore

/// A stored renewal info's facts, read from its members without making the payload.
extension RenewalFacts {
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
      signedDate: try object.timestamp(Keys.signedDate))
  }
}
