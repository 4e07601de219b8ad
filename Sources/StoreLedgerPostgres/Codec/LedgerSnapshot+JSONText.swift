import StoreLedgerCore

/// The views as JSON text, member for member what their `Encodable` writes (the tests compare
/// both), for read models written on every projection.
extension SubscriptionView {
  public func write(to json: inout JSONTextWriter) {
    json.object { json in
      json.member("originalTransactionId", originalTransactionId)
      json.member("productId", productId)
      json.member("subscriptionGroupIdentifier", subscriptionGroupIdentifier)
      json.member("appAccountToken", appAccountToken)
      json.member("inAppOwnershipType", inAppOwnershipType)
      json.member("status", status)
      json.member("entitled", entitled)
      json.member("expiresDate", expiresDate)
      json.member("gracePeriodExpiresDate", gracePeriodExpiresDate)
      json.member("autoRenewStatus", autoRenewStatus)
      json.member("autoRenewProductId", autoRenewProductId)
      json.member("expirationIntent", expirationIntent)
      json.member("priceIncreaseStatus", priceIncreaseStatus)
      json.member("renewalDate", renewalDate)
      json.member("isInBillingRetryPeriod", isInBillingRetryPeriod)
      json.member("environment", environment)
      json.member("price", price)
      json.member("currency", currency)
      json.member("offerType", offerType)
      json.member("offerIdentifier", offerIdentifier)
      json.member("offerDiscountType", offerDiscountType)
      json.member("offerPeriod", offerPeriod)
      json.member("renewalPrice", renewalPrice)
      json.member("renewalCurrency", renewalCurrency)
      json.member("transactionId", transactionId)
      json.member("rule", rule)
      json.member("appleStatus", appleStatus)
    }
  }
}

extension ConsumableView {
  public func write(to json: inout JSONTextWriter) {
    json.object { json in
      json.member("appAccountToken", appAccountToken)
      json.member("productId", productId)
      json.member("purchased", purchased)
      json.member("refunded", refunded)
      json.member("debited", debited)
      json.member("balance", balance)
      json.member("environments") { $0.strings(environments) }
    }
  }
}

extension EntitlementView {
  public func write(to json: inout JSONTextWriter) {
    json.object { json in
      json.member("appAccountToken", appAccountToken)
      json.member("entitlement", entitlement)
      json.member("active", active)
      json.member("expiresDate", expiresDate)
      json.member("source", source)
      json.member("rule", rule)
      json.member("environment", environment)
    }
  }
}
